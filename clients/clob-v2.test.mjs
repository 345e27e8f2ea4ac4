// @polymarket/clob-client-v2 1.1.0 (V2 orders, pinned in package-lock.json)
// against pmx's CLOB: run by internal/clob/clobhttp's Go test.
import { test } from 'node:test';
import { ClobClient, Side, OrderType, Chain } from '@polymarket/clob-client-v2';
import { Wallet } from '@ethersproject/wallet';
import { base, flow } from './clob-flow.mjs';

// Hardhat/Anvil accounts #6 and #7 (funded by the Go test).
const walletA = new Wallet('0x92db14e403b83dfe3df233f83dfa3a0d7096f21ca9b0d6d6b8d88b2b4ec1564e');
const walletB = new Wallet('0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356');

test('clob-client-v2 1.1.0: key, markets, book hash, order lifecycle, cancelAll, crossing trade', async () => {
  await flow({ label: 'v2', walletA, walletB, Side, OrderType,
    make: (w, creds) => new ClobClient({ host: base, chain: Chain?.POLYGON ?? 137, signer: w, creds }) });
});
