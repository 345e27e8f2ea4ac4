// Drives the official @polymarket/client (pinned in package-lock.json)
// against a pmx CLOB listener's API-key routes. PMX_CLOB_URL is the
// listener's base URL. Run by internal/clob/clobhttp's Go test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createSecureClient, forkEnvironmentConfig } from '@polymarket/client';
import { keySigner } from './keysigner.mjs';

const base = process.env.PMX_CLOB_URL;
if (!base) throw new Error('PMX_CLOB_URL is not set');

const environment = forkEnvironmentConfig({ name: 'pmx', clob: { rest: base } });

// Hardhat/Anvil account #2; the signer counts its typed-data signatures so
// the test can tell "reused credentials" from "signed again".
const signer = keySigner('0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a');
const wallet = await signer.getAddress();

test('CLOB API key: create, derive, reuse, revoke, re-create', async () => {
  // First authentication creates the key for nonce 0.
  const first = await createSecureClient({ environment, signer, wallet });
  const creds = first.credentials;
  assert.match(creds.key, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(typeof creds.secret, 'string');
  assert.equal(typeof creds.passphrase, 'string');
  assert.equal(signer.signatures, 1);

  // Authenticating again: create answers 400, the client derives the same key.
  const again = await createSecureClient({ environment, signer, wallet });
  assert.deepEqual(again.credentials, creds);
  assert.equal(signer.signatures, 2);

  // Stored credentials are checked with GET /auth/api-keys (L2); no signature.
  const reused = await createSecureClient({ environment, signer, wallet, credentials: creds });
  assert.deepEqual(reused.credentials, creds);
  assert.equal(signer.signatures, 2);

  // Another nonce is another key.
  const other = await createSecureClient({ environment, signer, wallet, nonce: 5 });
  assert.notEqual(other.credentials.key, creds.key);

  // endAuthentication deletes the key (DELETE /auth/api-key answers "OK").
  await reused.endAuthentication();

  // The revoked credentials fail the L2 check (401); the client signs again
  // and create issues fresh credentials for nonce 0.
  const fresh = await createSecureClient({ environment, signer, wallet, credentials: creds });
  assert.notEqual(fresh.credentials.key, creds.key);
  assert.notEqual(fresh.credentials.secret, creds.secret);
  assert.equal(signer.signatures, 4);
});
