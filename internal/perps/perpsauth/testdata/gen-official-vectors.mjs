// Generates official_client_vectors.json with the official @polymarket/client
// 0.2.0's own (unexported) perps signing functions, so the Go verifier is
// checked against the client's code rather than against a re-implementation.
//
// The functions are not exported; this script runs against a throwaway copy
// of node_modules in which the client's chunk is re-exported:
//
//   rm -rf /tmp/pmxgen && mkdir -p /tmp/pmxgen && cp -r clients/node_modules /tmp/pmxgen/
//   d=/tmp/pmxgen/node_modules/@polymarket/client/dist
//   cp $d/chunk-FA3ZDOJN.js $d/gen-exports.mjs
//   printf '\nexport {ds as __ds, Wt as __Wt, Vs as __Vs, Hr as __Hr, wf as __wf};\n' >> $d/gen-exports.mjs
//   cp internal/perps/perpsauth/testdata/gen-official-vectors.mjs /tmp/pmxgen/ && cd /tmp/pmxgen
//   node gen-official-vectors.mjs > <repo>/internal/perps/perpsauth/testdata/official_client_vectors.json
//
// In the chunk: Vs builds a createOrders row, Hr a TP/SL leg, Wt turns the
// compact op into the keyed op the client sends, ds signs an Op, wf builds
// the CreateProxy typed data.
import * as c from './node_modules/@polymarket/client/dist/gen-exports.mjs';
import { Address, Secp256k1, Signature, TypedData } from 'ox';

const key = '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d'; // Anvil #1
const owner = '0x0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef';
const addr = (k) => Address.fromPublicKey(Secp256k1.getPublicKey({ privateKey: k }));
const ts0 = 1751500000000;

const order = (o) => c.__Vs({ instrumentId: 7, side: 'BUY', quantity: '1', timeInForce: 'gtc', ...o });
const cases = [
  ['limit with coid', ['createOrders', [order({ price: '100.50', clientOrderId: '0123456789abcdef0123456789abcdef' })]]],
  ['market ioc sell', ['createOrders', [order({ side: 'SELL', quantity: '0.25', timeInForce: 'ioc' })]]],
  ['fok with price', ['createOrders', [order({ price: '0.00001234', timeInForce: 'fok' })]]],
  ['post-only', ['createOrders', [order({ price: '99999', postOnly: true })]]],
  ['reduce-only', ['createOrders', [order({ price: '3', reduceOnly: true, side: 'SELL' })]]],
  ['bracket', ['createOrders', [
    order({ price: '100', quantity: '3' }),
    c.__Hr({ buy: false, instrumentId: 7, kind: 'tp', quantity: '3', trigger: { triggerPrice: '200' } }),
    c.__Hr({ buy: false, instrumentId: 7, kind: 'sl', quantity: '3', trigger: { triggerPrice: '49', limitPrice: '50' } }),
  ], 'order']],
  ['position tp', ['createOrders', [
    c.__Hr({ buy: true, instrumentId: 2, kind: 'tp', quantity: '0', trigger: { triggerPrice: '1.5' } }),
  ], 'position']],
  ['batch of 20', ['createOrders', Array.from({ length: 20 }, (_, i) =>
    order({ price: (100 + i / 4).toString(), side: i % 2 ? 'SELL' : 'BUY', clientOrderId: (i + 1).toString(16).padStart(32, 'a') }))]],
  ['cancel', ['cancelOrders', [1, 255, 65536, 4294967296, 9007199254740991]]],
  ['cancel coid', ['cancelOrdersCOID', ['0123456789abcdef0123456789abcdef']]],
  ['cancel all', ['cancelAll', []]],
  ['cancel all iid', ['cancelAll', [7]]],
  ['leverage', ['updateLeverage', [7, 20, false]]],
];

const out = { client: '@polymarket/client 0.2.0', signer: addr(key), ops: [], createProxy: null };
cases.forEach(([name, op], i) => {
  const salt = 1000 + i, ts = ts0 + i;
  const sig = c.__ds({ chainId: 137, op, privateKey: key, salt, timestamp: ts });
  out.ops.push({ name, type: op[0], body: { op: c.__Wt(op), sig, salt, ts } });
});

const proxy = addr(key), expiry = ts0 + 7 * 24 * 3600 * 1000, salt = 4242, ts = ts0 + 100;
const payload = TypedData.getSignPayload(c.__wf({ chainId: 137, proxy, expiresAt: expiry, salt, timestamp: ts }));
const sig = Signature.toHex(Secp256k1.sign({ payload, privateKey: owner }));
out.createProxy = { owner: addr(owner), body: { op: { args: { expiry, owner: addr(owner), proxy }, type: 'createProxy' }, salt, sig, ts, label: 'session' } };
console.log(JSON.stringify(out, null, 1));
