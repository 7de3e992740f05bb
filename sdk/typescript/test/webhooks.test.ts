import assert from "node:assert/strict";
import { generateKeyPairSync, sign } from "node:crypto";
import { test } from "node:test";

import { WEBHOOK_API_VERSION, WebhookVerificationError, verifyWebhook } from "../src/index.js";

function keyPair() {
  const { publicKey, privateKey } = generateKeyPairSync("ed25519");
  const raw = publicKey.export({ format: "der", type: "spki" }).subarray(12); // the 32 key bytes after the prefix
  return { publicKey: raw.toString("base64"), privateKey };
}

const NOW = 1_800_000_000;
const event = { apiVersion: "2025-06-22", id: "0d9e-test", type: "webhook.test", createdAt: "x", data: { appId: "a" } };

function delivery(key = keyPair(), body = JSON.stringify(event), id = event.id, ts = String(NOW)) {
  const signature = sign(null, Buffer.from(`${id}.${ts}.${body}`), key.privateKey).toString("base64");
  const headers = {
    "content-type": "application/json",
    "x-service-event-id": id,
    "x-service-timestamp": ts,
    "x-service-signature": signature,
    "x-service-key-id": "k1",
  };
  return { key, body, headers };
}

function reason(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    assert.ok(error instanceof WebhookVerificationError, String(error));
    return error.reason;
  }
  return "accepted";
}

test("the webhook apiVersion comes from the document", () => {
  assert.match(WEBHOOK_API_VERSION, /^\d{4}-\d{2}-\d{2}$/);
});

test("a signed delivery verifies and gives its event", () => {
  const { key, body, headers } = delivery();
  const verified = verifyWebhook(Buffer.from(body), headers, key.publicKey, { now: NOW + 10 });
  assert.deepEqual(verified, event);
  assert.equal(verifyWebhook(body, new Headers(headers), [keyPair().publicKey, key.publicKey], { now: NOW }).id, event.id);
  const capitalised = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), [v]]));
  assert.equal(verifyWebhook(body, capitalised, key.publicKey, { now: NOW }).type, "webhook.test");
});

test("the public-key answer: the key named by X-Service-Key-Id, previous keys still verify", () => {
  const old = delivery();
  const current = keyPair();
  const answer = { publicKey: current.publicKey, keyId: "k2", previous: [{ publicKey: old.key.publicKey, keyId: "k1" }] };
  assert.equal(verifyWebhook(old.body, old.headers, answer, { now: NOW }).id, event.id);
  const unnamed = { ...old.headers, "x-service-key-id": "k9" };
  assert.equal(verifyWebhook(old.body, unnamed, answer, { now: NOW }).id, event.id);
  const wrongName = { ...old.headers, "x-service-key-id": "k2" };
  assert.equal(reason(() => verifyWebhook(old.body, wrongName, answer, { now: NOW })), "INVALID_SIGNATURE");
});

test("forged, altered, stale, replayed or incomplete deliveries are refused", () => {
  const { key, body, headers } = delivery();
  const other = keyPair();
  assert.equal(reason(() => verifyWebhook(body, headers, other.publicKey, { now: NOW })), "INVALID_SIGNATURE");
  const forged = delivery(other);
  assert.equal(reason(() => verifyWebhook(forged.body, forged.headers, key.publicKey, { now: NOW })), "INVALID_SIGNATURE");
  assert.equal(reason(() => verifyWebhook(body.replace("a", "b"), headers, key.publicKey, { now: NOW })), "INVALID_SIGNATURE");
  const moved = { ...headers, "x-service-timestamp": String(NOW + 1) };
  assert.equal(reason(() => verifyWebhook(body, moved, key.publicKey, { now: NOW })), "INVALID_SIGNATURE");
  assert.equal(reason(() => verifyWebhook(body, headers, key.publicKey, { now: NOW + 301 })), "STALE_TIMESTAMP");
  assert.equal(reason(() => verifyWebhook(body, headers, key.publicKey, { now: NOW - 301 })), "STALE_TIMESTAMP");
  assert.equal(reason(() => verifyWebhook(body, headers, key.publicKey, { now: NOW + 600, toleranceSeconds: 900 })), "accepted");
  const { "x-service-signature": _, ...unsigned } = headers;
  assert.equal(reason(() => verifyWebhook(body, unsigned, key.publicKey, { now: NOW })), "MISSING_HEADERS");
  const other_id = delivery(key, body, "another-id");
  assert.equal(reason(() => verifyWebhook(other_id.body, other_id.headers, key.publicKey, { now: NOW })), "ID_MISMATCH");
  const bad_ts = { ...headers, "x-service-timestamp": "1e9" };
  assert.equal(reason(() => verifyWebhook(body, bad_ts, key.publicKey, { now: NOW })), "MALFORMED");
  assert.equal(reason(() => verifyWebhook(body, headers, "c2hvcnQ=", { now: NOW })), "MALFORMED");
  const short = { ...headers, "x-service-signature": "AAAA" };
  assert.equal(reason(() => verifyWebhook(body, short, key.publicKey, { now: NOW })), "INVALID_SIGNATURE");
});
