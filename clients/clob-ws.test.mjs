// Drives the official @polymarket/client's realtime subscription of the CLOB
// market channel against pmx's socket (PMX_CLOB_WS_MARKET, the listener's
// /ws/market): the client's own subscribe message, its strict event schemas
// (an event that fails them is dropped silently, so a wrong shape times
// out here). The Go test rests a bid on PMX_TOKEN_YES and keeps placing and
// cancelling an order beside it and moving the tick size between 0.01 and
// 0.001, so level and tick size changes follow the snapshot.
// Run by internal/clob/clobhttp's Go test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicClient, forkEnvironmentConfig } from '@polymarket/client';

const rest = process.env.PMX_CLOB_URL;
const ws = process.env.PMX_CLOB_WS_MARKET;
const token = process.env.PMX_TOKEN_YES;
if (!rest || !ws || !token) throw new Error('PMX_CLOB_URL, PMX_CLOB_WS_MARKET and PMX_TOKEN_YES must be set');

const client = createPublicClient({
  environment: forkEnvironmentConfig({ name: 'pmx', clob: { rest, market: { ws } } }),
});

test('market channel: book snapshot, then price changes and tick size changes, through the strict schemas', async () => {
  const handle = await client.subscribe([{ topic: 'market', tokenIds: [token] }]);
  const seen = new Set();
  const deadline = Date.now() + 20000;
  try {
    for await (const event of handle) {
      seen.add(event.type);
      if (event.type === 'book') {
        assert.equal(event.payload.tokenId, token);
        assert.ok(event.payload.bids.length >= 1, 'the resting bid is in the snapshot');
      }
      if (event.type === 'price_change') {
        assert.ok(event.payload.priceChanges.some((c) => c.tokenId === token));
      }
      if (event.type === 'tick_size_change') {
        assert.equal(event.payload.tokenId, token);
        assert.ok(['0.01', '0.001'].includes(String(event.payload.newTickSize)), JSON.stringify(event.payload));
        assert.notEqual(String(event.payload.oldTickSize), String(event.payload.newTickSize));
      }
      if (seen.has('book') && seen.has('price_change') && seen.has('tick_size_change')) break;
      if (Date.now() > deadline) break;
    }
  } finally {
    await handle.close();
    await client.closeSubscriptions?.();
  }
  assert.ok(seen.has('book'), `events seen: ${[...seen]}`);
  assert.ok(seen.has('price_change'), `events seen: ${[...seen]}`);
  assert.ok(seen.has('tick_size_change'), `events seen: ${[...seen]}`);
});
