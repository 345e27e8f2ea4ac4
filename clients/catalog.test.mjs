// Drives the official @polymarket/client (pinned in package-lock.json)
// against a pmx catalog listener. PMX_CATALOG_URL is the listener's base URL;
// PMX_EXPECT_EVENTS, when set, is the comma-separated list of open event ids
// the walk must return in order. Run by internal/catalog/catalogsql's Go test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPublicClient, forkEnvironmentConfig } from '@polymarket/client';

const base = process.env.PMX_CATALOG_URL;
if (!base) throw new Error('PMX_CATALOG_URL is not set');

const client = createPublicClient({
  environment: forkEnvironmentConfig({ name: 'pmx', gamma: { rest: base } }),
});

async function walkEvents(pageSize) {
  const events = [];
  let pages = 0;
  for await (const page of client.listEvents({ pageSize })) {
    pages++;
    events.push(...page.items);
    assert.ok(pages < 100, 'keyset walk does not end');
  }
  return { events, pages };
}

test('listEvents walks /events/keyset through the strict schemas', async () => {
  const { events, pages } = await walkEvents(1);
  assert.ok(events.length > 0, 'no events listed');
  assert.equal(pages, events.length, 'one event per page with pageSize 1');
  const ids = events.map((e) => e.id);
  for (const id of ids) assert.equal(typeof id, 'string');
  if (process.env.PMX_EXPECT_EVENTS) {
    assert.deepEqual(ids, process.env.PMX_EXPECT_EVENTS.split(','));
  }
  const big = await walkEvents(50);
  assert.deepEqual(big.events.map((e) => e.id), ids, 'page size does not change the walk');
});

test('fetchEvent and fetchEventTags read every listed event', async () => {
  const { events } = await walkEvents(20);
  for (const listed of events) {
    const ev = await client.fetchEvent({ id: listed.id });
    assert.equal(ev.id, listed.id);
    assert.equal(ev.markets.length, listed.markets.length);
    for (const m of ev.markets) {
      assert.equal(typeof m.id, 'string');
      assert.match(m.conditionId, /^0x[0-9a-f]{64}$/);
      assert.equal(typeof m.outcomes.yes.label, 'string');
      assert.equal(typeof m.outcomes.no.label, 'string');
      assert.match(m.outcomes.yes.tokenId, /^[0-9]+$/);
      assert.match(m.outcomes.no.tokenId, /^[0-9]+$/);
      assert.equal(typeof m.metrics.liquidity, 'string');
      assert.equal(typeof m.metrics.volume, 'string');
      assert.equal(m.events[0].id, ev.id);
    }
    const tags = await client.fetchEventTags({ id: listed.id });
    assert.ok(Array.isArray(tags));
    assert.deepEqual(tags.map((t) => t.id), ev.tags.map((t) => t.id));
    for (const t of tags) assert.equal(typeof t.id, 'string');
  }
});

test('the full production-format event survives the client', async () => {
  const ev = await client.fetchEvent({ id: '9001' }).catch((e) => {
    if (process.env.PMX_EXPECT_EVENTS?.includes('9001')) throw e;
    return null;
  });
  if (ev === null) return;
  assert.equal(ev.markets.length, 2);
  const m = ev.markets[0];
  assert.equal(m.outcomes.yes.price, '0.0455');
  assert.equal(m.trading.minimumTickSize, 0.01);
  assert.equal(ev.series[0].id, '2');
  assert.equal(ev.creators.length, 1);
  const tags = await client.fetchEventTags({ id: '9001' });
  assert.deepEqual(tags.map((t) => t.slug), ['politics', 'all']);
});

test('an unknown event is a 404 the client reports', async () => {
  await assert.rejects(client.fetchEvent({ id: '999999999' }), (err) => {
    assert.match(String(err.status ?? err.message), /404|not found/i);
    return true;
  });
});
