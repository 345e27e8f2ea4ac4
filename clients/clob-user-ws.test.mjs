// Drives the official @polymarket/client's realtime subscription of the CLOB
// user channel against pmx's socket (PMX_CLOB_WS_USER, the listener's
// /ws/user): two secure clients (Anvil #8 and #9, EOA wallets the Go test
// funds) authenticate with their own L1 flow, subscribe to { topic: 'user' }
// with the API credentials, and trade with the client's placeLimitOrder. The
// client parses every frame with its strict schemas and drops one that fails
// them silently, so a wrong shape times out here.
// Run by internal/clob/clobhttp's Go test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSecureClient, forkEnvironmentConfig, OrderSide } from '@polymarket/client';
import { keySigner } from './keysigner.mjs';

const rest = process.env.PMX_CLOB_URL;
const ws = process.env.PMX_CLOB_WS_USER;
const market = process.env.PMX_MARKET;
const token = process.env.PMX_TOKEN_YES;
if (!rest || !ws || !market || !token) throw new Error('PMX_CLOB_URL, PMX_CLOB_WS_USER, PMX_MARKET and PMX_TOKEN_YES must be set');

const environment = forkEnvironmentConfig({ name: 'pmx', clob: { rest, user: { ws } } });

async function secure(privateKey) {
  const signer = keySigner(privateKey);
  return createSecureClient({ environment, signer, wallet: await signer.getAddress() });
}

// collect reads a subscription until want() holds for the events seen, or
// the deadline passes.
async function collect(handle, want) {
  const seen = [];
  const it = handle[Symbol.asyncIterator]();
  const deadline = Date.now() + 20000;
  while (!want(seen) && Date.now() < deadline) {
    let timer;
    const next = await Promise.race([it.next(), new Promise((r) => { timer = setTimeout(() => r(null), deadline - Date.now()); })]);
    clearTimeout(timer);
    if (next === null || next.done) break;
    seen.push(next.value);
  }
  return seen;
}

const find = (seen, type, pred) => seen.find((e) => e.type === type && pred(e.payload));

test('user channel: order and trade events through the strict schemas', async () => {
  const maker = await secure('0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97');
  const taker = await secure('0x2a871d0798f97d79848a013d4936a73bf4cc922c825d33c1cf7073dff6d409c6');
  const mh = await maker.subscribe([{ topic: 'user', markets: [market] }]);
  const th = await taker.subscribe([{ topic: 'user' }]);
  try {
    const rest1 = await maker.placeLimitOrder({ price: 0.4, side: OrderSide.BUY, size: 10, tokenId: token });
    assert.ok(rest1.ok !== false, JSON.stringify(rest1));
    const take = await taker.placeLimitOrder({ price: 0.4, side: OrderSide.SELL, size: 10, tokenId: token });
    assert.ok(take.ok !== false, JSON.stringify(take));

    const mine = await collect(mh, (s) => find(s, 'trade', (p) => p.status === 'TRADE_STATUS_CONFIRMED'));
    const placed = find(mine, 'order', (p) => p.orderEventType === 'PLACEMENT');
    assert.ok(placed, `maker events: ${JSON.stringify(mine.map((e) => e.type))}`);
    assert.equal(placed.topic, 'user');
    assert.equal(placed.payload.market, market);
    assert.equal(placed.payload.tokenId, token);
    assert.equal(String(placed.payload.side), 'BUY');
    assert.equal(placed.payload.status, 'LIVE');
    const filled = find(mine, 'order', (p) => p.orderEventType === 'UPDATE');
    assert.ok(filled, 'the fill updates the resting order');
    assert.equal(filled.payload.id, placed.payload.id);
    assert.equal(filled.payload.status, 'MATCHED');
    const statuses = mine.filter((e) => e.type === 'trade').map((e) => e.payload.status);
    // The client maps the wire statuses (MATCHED, MINED, CONFIRMED) to its TradeStatus enum.
    assert.deepEqual(statuses, ['TRADE_STATUS_MATCHED', 'TRADE_STATUS_MINED', 'TRADE_STATUS_CONFIRMED']);
    const trade = find(mine, 'trade', () => true).payload;
    assert.equal(trade.traderSide, 'MAKER');
    assert.equal(trade.market, market);
    assert.equal(trade.tokenId, token);
    assert.ok(trade.makerOrders?.some((m) => m.orderId === placed.payload.id), JSON.stringify(trade.makerOrders));

    const theirs = await collect(th, (s) => find(s, 'trade', (p) => p.status === 'TRADE_STATUS_MATCHED'));
    const tt = find(theirs, 'trade', () => true);
    assert.ok(tt, `taker events: ${JSON.stringify(theirs.map((e) => e.type))}`);
    assert.equal(tt.payload.traderSide, 'TAKER');
    assert.equal(tt.payload.id, trade.id);
    assert.ok(find(theirs, 'order', (p) => p.orderEventType === 'PLACEMENT' && p.status === 'MATCHED'));
  } finally {
    await mh.close();
    await th.close();
    await maker.closeSubscriptions?.();
    await taker.closeSubscriptions?.();
  }
});
