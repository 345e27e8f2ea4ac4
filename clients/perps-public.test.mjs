// Drives the official @polymarket/client (pinned in package-lock.json) through
// the public perps reads against a pmx perps listener. PMX_PERPS_URL is the
// listener's base URL; the Go test lists instrument 1 (BTC-USD) with a
// two-sided book and at least one trade first. Run by internal/perps/perpshttp's Go test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicClient, forkEnvironmentConfig } from '@polymarket/client';

const base = process.env.PMX_PERPS_URL;
if (!base) throw new Error('PMX_PERPS_URL is not set');

const client = createPublicClient({
  environment: forkEnvironmentConfig({ name: 'pmx', perps: { rest: base } }),
});

test('instruments, tickers, book, fees through the strict schemas', async () => {
  const ins = await client.fetchPerpsInstruments({});
  assert.ok(ins.length >= 1);
  const btc = ins.find((i) => i.symbol === 'BTC-USD');
  assert.ok(btc, 'BTC-USD listed');
  const one = await client.fetchPerpsInstruments({ instrumentId: btc.instrumentId ?? btc.instrument_id ?? 1 });
  assert.equal(one.length, 1);
  const tickers = await client.fetchPerpsTickers({});
  assert.ok(tickers.length >= 1);
  const filtered = await client.fetchPerpsTickers({ instrumentId: 1 });
  assert.equal(filtered.length, 1);
  await client.fetchPerpsTicker({ instrumentId: 1 });
  const book = await client.fetchPerpsBook({ instrumentId: 1, depth: 10 });
  assert.ok(book);
  await client.fetchPerpsFees();
});

test('trades and candles', async () => {
  const first = async (pages) => {
    for await (const page of pages) return page.items ?? page;
    return [];
  };
  const trades = await first(client.listPerpsTrades({ instrumentId: 1 }));
  assert.ok(trades.length >= 1, 'one trade listed');
  const candles = await first(client.listPerpsCandles({ instrumentId: 1, interval: '1m', start: 0 }));
  assert.ok(candles.length >= 1, 'one candle listed');
  const rates = await first(client.listPerpsFundingHistory({ instrumentId: 1 }));
  assert.ok(Array.isArray(rates), 'funding history listed');
});
