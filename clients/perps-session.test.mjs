// Drives the official @polymarket/client (pinned in package-lock.json) through
// a perps session against pmx: CLOB API key (PMX_CLOB_URL), proxy creation,
// credentials, WS auth and subscriptions, orders over the socket, account
// reads, revocation. PMX_PERPS_URL / PMX_PERPS_WS are the perps listener;
// the Go test lists instrument 1 (BTC-USD) and funds the signer below.
// Run by internal/perps/perpshttp's Go test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSecureClient, forkEnvironmentConfig, OrderSide } from '@polymarket/client';
import { keySigner } from './keysigner.mjs';

const clob = process.env.PMX_CLOB_URL;
const perps = process.env.PMX_PERPS_URL;
const ws = process.env.PMX_PERPS_WS;
if (!clob || !perps || !ws) throw new Error('PMX_CLOB_URL, PMX_PERPS_URL and PMX_PERPS_WS must be set');

const environment = forkEnvironmentConfig({ name: 'pmx', clob: { rest: clob }, perps: { rest: perps, ws } });

// Hardhat/Anvil account #3.
const signer = keySigner('0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6');
const wallet = await signer.getAddress();

// The session's event stream (every push, buffered); waitOrder reads it up to
// the first update of order id. placeOrder also waits for that update but
// registers its wait only after the ack is processed; the server's ack gap
// (perpshttp.DefaultAckGap, 100 ms like production) keeps the push out of
// the ack's socket read, and the test below calls placeOrder itself.
function events(session) {
  const it = session[Symbol.asyncIterator]();
  return async function waitOrder(id) {
    const deadline = Date.now() + 10000;
    while (Date.now() < deadline) {
      let timer;
      const next = await Promise.race([it.next(), new Promise((r) => { timer = setTimeout(() => r(null), 10000); })]);
      clearTimeout(timer);
      if (next === null || next.done) break;
      if (next.value.type === 'order' && next.value.payload.id === id) return next.value.payload;
    }
    throw new Error(`no order push for ${id}`);
  };
}

async function post(session, order) {
  const [ack] = await session.postOrders({ orders: [order] });
  assert.equal(ack.status, 'ok', JSON.stringify(ack));
  return ack.orderId ?? ack.oid;
}

test('perps session: proxy, credentials, orders over the socket, reads, revoke', async () => {
  const client = await createSecureClient({ environment, signer, wallet });
  const session = await client.openPerpsSession({ label: 'pmx-test' });
  try {
    assert.match(session.credentials.proxy, /^0x[0-9a-fA-F]{40}$/);
    const balances = await session.fetchBalances();
    assert.equal(balances.length, 1);
    const waitOrder = events(session);
    const id = await post(session, { instrumentId: 1, side: OrderSide.BUY, price: '100', quantity: '1', timeInForce: 'gtc' });
    const pushed = await waitOrder(id);
    assert.equal(pushed.status, 'open');
    const open = await session.fetchOpenOrders();
    assert.equal(open.length, 1);
    await session.fetchOrders();
    await session.fetchPortfolio();
    await session.fetchStats();
    await session.fetchAccountConfig();
    for await (const page of session.listFills()) { assert.ok(Array.isArray(page.items ?? page)); break; }
    await session.cancelOrder({ orderId: open[0].id });
    assert.equal((await session.fetchOpenOrders()).length, 0);

    // Leverage and margin mode over the socket; the config shows it.
    const lev = await session.updateLeverage({ instrumentId: 1, leverage: 5, crossMargin: true });
    assert.ok(lev, 'updateLeverage answered');
    const cfg = await session.fetchAccountConfig();
    const row = (Array.isArray(cfg) ? cfg : cfg.items ?? Object.values(cfg)).flat().find((r) => (r.instrumentId ?? r.instrument_id) === 1);
    assert.equal(row?.leverage, 5, JSON.stringify(cfg));
    for await (const page of session.listFundingPayments({ instrumentId: 1 })) { assert.ok(Array.isArray(page.items ?? page)); break; }
    // placeOrder itself: it waits for the order's first push after the ack.
    const placed = await session.placeOrder({ instrumentId: 1, side: OrderSide.BUY, price: '101', quantity: '1', timeInForce: 'gtc' });
    assert.equal((placed.order ?? placed).status, 'open', JSON.stringify(placed));
    await session.cancelOrder({ orderId: (placed.order ?? placed).id });

    // Money: the operator's deposit is listed; a withdrawal is listed with its id.
    let deposits = [];
    for await (const page of session.listDeposits()) { deposits = deposits.concat(page.items ?? page); break; }
    assert.ok(deposits.length >= 1, JSON.stringify(deposits));
    const withdrawalId = await client.withdrawFromPerps({ amount: 100_000_000n });
    let withdrawals = [];
    for await (const page of session.listWithdrawals()) { withdrawals = withdrawals.concat(page.items ?? page); break; }
    const w = withdrawals.find((x) => String(x.withdrawalId ?? x.withdraw_id) === String(withdrawalId));
    assert.ok(w, `withdrawal ${withdrawalId} not listed: ${JSON.stringify(withdrawals, (k, v) => typeof v === 'bigint' ? String(v) : v)}`);

    // Equity and PnL history: the deposit, the withdrawal and a fill (an IOC
    // against the Go test's resting ask at 150) are sampled; the fill's taker
    // fee is realized pnl.
    await post(session, { instrumentId: 1, side: OrderSide.BUY, price: '150', quantity: '0.01', timeInForce: 'ioc' });
    const day = { interval: '1h', start: Date.now() - 86_400_000 };
    let equity = [];
    for await (const page of session.listEquityHistory(day)) { equity = equity.concat(page.items ?? page); }
    assert.ok(equity.length >= 1 && equity.every((p) => typeof p.equity === 'string' && p.timestamp > day.start), JSON.stringify(equity));
    let pnl = [];
    for await (const page of session.listPnlHistory(day)) { pnl = pnl.concat(page.items ?? page); }
    assert.ok(pnl.some((p) => Number(p.pnl) < 0), `the taker fee is realized pnl: ${JSON.stringify(pnl)}`);

    // TP/SL: a position-scoped take-profit on the 0.01 long just bought, and
    // a bracket (entry with TP and SL legs); cancelling the entry cascades.
    const pos = await session.placePositionTpSl({ instrumentId: 1, takeProfit: { triggerPrice: '10000' } });
    const tpId = pos.tpSl.takeProfit.orderId ?? pos.tpSl.takeProfit.id;
    assert.ok(tpId, JSON.stringify(pos));
    await session.cancelOrder({ orderId: tpId });
    const bracket = await session.placeOrder({ instrumentId: 1, side: OrderSide.BUY, price: '102', quantity: '1', timeInForce: 'gtc',
      takeProfit: { triggerPrice: '10000' }, stopLoss: { triggerPrice: '50' } });
    assert.equal(bracket.order.status, 'open', JSON.stringify(bracket));
    assert.ok(bracket.tpSl.takeProfit && bracket.tpSl.stopLoss, JSON.stringify(bracket));
    await session.cancelOrder({ orderId: bracket.order.id });
    assert.equal((await session.fetchOpenOrders()).length, 0);

    // A second session on the same credential; cancel-all from it.
    const second = await client.openPerpsSession({ credentials: session.credentials });
    try {
      await post(second, { instrumentId: 1, side: OrderSide.SELL, price: '200', quantity: '1', timeInForce: 'gtc' });
      await post(session, { instrumentId: 1, side: OrderSide.BUY, price: '90', quantity: '1', timeInForce: 'gtc' });
      assert.equal((await second.fetchOpenOrders()).length, 2);
      await second.cancelAllOrders();
      assert.equal((await session.fetchOpenOrders()).length, 0);
    } finally {
      await second.close();
    }
  } finally {
    await session.close();
  }
  await client.revokePerpsCredentials({ proxy: session.credentials.proxy });
  // The revoked credential no longer resumes.
  await assert.rejects(client.openPerpsSession({ credentials: session.credentials }));
});
