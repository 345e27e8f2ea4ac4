// @polymarket/clob-client 5.8.1 (V1 orders, pinned in package-lock.json)
// against pmx's CLOB: run by internal/clob/clobhttp's Go test.
import { test } from 'node:test';
import { ClobClient, Side, OrderType } from '@polymarket/clob-client';
import { Wallet } from '@ethersproject/wallet';
import { base, flow } from './clob-flow.mjs';

// Hardhat/Anvil accounts #4 and #5 (funded by the Go test).
const walletA = new Wallet('0x47e179ec197488593b187f80a00eb0da91f1b9d0b13f8733639f19c30a34926a');
const walletB = new Wallet('0x8b3a350cf5c34c9194ca85829a2df0ec3153be0318b5e2d3348e872092edffba');

test('clob-client 5.8.1: key, markets, book hash, order lifecycle, cancelAll, crossing trade', async () => {
  await flow({ label: 'v1', walletA, walletB, Side, OrderType,
    make: (w, creds) => new ClobClient(base, 137, w, creds) });
});
