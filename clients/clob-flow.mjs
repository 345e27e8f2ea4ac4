// The trading flow both official CLOB clients run against pmx (see
// clob-v1.test.mjs and clob-v2.test.mjs). make(wallet, creds) builds a
// client; the Go test funds the wallets and names the market in the
// environment: PMX_CLOB_URL, PMX_MARKET, PMX_TOKEN_YES.
import assert from 'node:assert/strict';

export const base = process.env.PMX_CLOB_URL;
export const market = process.env.PMX_MARKET;
export const yes = process.env.PMX_TOKEN_YES;
if (!base || !market || !yes) throw new Error('PMX_CLOB_URL, PMX_MARKET and PMX_TOKEN_YES must be set');

export async function flow({ make, walletA, walletB, Side, OrderType, label }) {
  // Derive a key (create, or derive when it exists) and trade with it.
  const a = make(walletA, await make(walletA).createOrDeriveApiKey());
  const b = make(walletB, await make(walletB).createOrDeriveApiKey());
  assert.ok(a.creds.key, `${label}: no api key`);

  // List markets: ours is there.
  const markets = await a.getMarkets();
  assert.ok(Array.isArray(markets.data), `${label}: markets ${JSON.stringify(markets)}`);
  assert.ok(markets.data.some((m) => m.condition_id === market), `${label}: market not listed`);

  // Read a book and check its hash the way the client computes it.
  const book = await a.getOrderBook(yes);
  const served = book.hash;
  assert.equal(await a.getOrderBookHash({ ...book }), served, `${label}: book hash`);

  // A resting order: listed, fetched, canceled.
  const rest = await a.createAndPostOrder({ tokenID: yes, price: 0.11, side: Side.BUY, size: 10 }, { tickSize: '0.01', negRisk: false });
  assert.equal(rest.success, true, `${label}: post ${JSON.stringify(rest)}`);
  assert.equal(rest.status, 'live');
  const open = await a.getOpenOrders({ market });
  assert.ok(open.some((o) => o.id === rest.orderID), `${label}: open orders ${JSON.stringify(open)}`);
  const got = await a.getOrder(rest.orderID);
  assert.equal(got.id, rest.orderID);
  assert.equal(got.side, 'BUY');
  const c1 = await a.cancelOrder({ orderID: rest.orderID });
  assert.deepEqual(c1.canceled, [rest.orderID], `${label}: cancel ${JSON.stringify(c1)}`);

  // cancelAll takes everything.
  const r2 = await a.createAndPostOrder({ tokenID: yes, price: 0.12, side: Side.BUY, size: 10 }, { tickSize: '0.01', negRisk: false });
  const r3 = await a.createAndPostOrder({ tokenID: yes, price: 0.13, side: Side.BUY, size: 10 }, { tickSize: '0.01', negRisk: false });
  const all = await a.cancelAll();
  assert.deepEqual([...all.canceled].sort(), [r2.orderID, r3.orderID].sort(), `${label}: cancelAll ${JSON.stringify(all)}`);
  assert.deepEqual(await a.getOpenOrders({ market }), []);

  // Two clients cross: a bids, b sells into it; both see the trade.
  const bid = await a.createAndPostOrder({ tokenID: yes, price: 0.45, side: Side.BUY, size: 10 }, { tickSize: '0.01', negRisk: false });
  assert.equal(bid.status, 'live', `${label}: bid ${JSON.stringify(bid)}`);
  const ask = await b.createAndPostOrder({ tokenID: yes, price: 0.44, side: Side.SELL, size: 10 }, { tickSize: '0.01', negRisk: false }, OrderType.GTC);
  assert.equal(ask.status, 'matched', `${label}: ask ${JSON.stringify(ask)}`);
  assert.equal(ask.tradeIDs.length, 1);
  const id = ask.tradeIDs[0];
  const ta = await a.getTrades({ market });
  const tb = await b.getTrades({ market });
  const seenA = ta.find((t) => t.id === id);
  const seenB = tb.find((t) => t.id === id);
  assert.ok(seenA && seenB, `${label}: trade ${id} not in both: ${JSON.stringify(ta)} / ${JSON.stringify(tb)}`);
  assert.equal(seenB.trader_side, 'TAKER');
  assert.equal(seenA.trader_side, 'MAKER');
  assert.equal(seenB.price, '0.45'); // the maker's price: the taker's improvement
  assert.equal(seenA.maker_orders[0].order_id, bid.orderID);
}
