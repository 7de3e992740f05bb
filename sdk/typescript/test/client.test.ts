import assert from "node:assert/strict";
import { test } from "node:test";

import {
  AuthenticationError,
  ConflictError,
  ConnectionError,
  Dompet,
  DompetError,
  IDEMPOTENT_POSTS,
  BadRequestError,
  ServerError,
} from "../src/index.js";
import { envelope, failure, jwt, noSleep, scripted } from "./helpers.js";

const APP = { appId: "0b7d5f3e-5a8c-4c1e-9d1a-2f6b8e4c7a10", appSecret: "das_x" };
const BASE = "http://127.0.0.1:9";

function app(fetch: typeof globalThis.fetch, maxRetries = 3) {
  return new Dompet({ baseUrl: BASE, ...APP, fetch, maxRetries, ...noSleep });
}

test("every POST carries an Idempotency-Key; the caller's own key is kept", async () => {
  const { fetch, sent } = scripted(
    () => envelope({ id: "e1", deliveryId: "d1" }),
    () => envelope({ id: "e2", deliveryId: "d2" }),
    () => envelope({ id: "e3", deliveryId: "d3" }),
  );
  const d = app(fetch);
  await d.POST("/api/v1/webhooks/test");
  await d.POST("/api/v1/webhooks/test");
  await d.request("POST", "/api/v1/webhooks/test", { headers: { "Idempotency-Key": "mine-1" } });
  const keys = sent.map((s) => s.headers.get("idempotency-key"));
  assert.match(keys[0] ?? "", /^[0-9a-f-]{36}$/);
  assert.notEqual(keys[0], keys[1]);
  assert.equal(keys[2], "mine-1");
  assert.equal(sent[0]?.headers.get("x-signature")?.length, 64);
});

test("GET is retried on 429/5xx and connection errors, signed afresh each time", async () => {
  const { fetch, sent } = scripted(
    () => failure(503, "SERVICE_UNAVAILABLE"),
    () => {
      throw new TypeError("fetch failed");
    },
    () => failure(429, "TOO_MANY_REQUESTS"),
    () => envelope({ appId: APP.appId, clientId: "c", organizationId: "o" }),
  );
  const who = await app(fetch).GET("/api/v1/auth/whoami");
  assert.equal(who.appId, APP.appId);
  assert.equal(sent.length, 4);
  assert.equal(new Set(sent.map((s) => s.headers.get("x-timestamp"))).size, 4);
});

test("retries run out: the last error is thrown, typed", async () => {
  const { fetch, sent } = scripted(
    () => failure(502, "BUNDLER_UNAVAILABLE"),
    () => failure(502, "BUNDLER_UNAVAILABLE"),
    () => failure(500, "INTERNAL_ERROR", { requestId: "req-1" }),
  );
  const error = await app(fetch, 2)
    .GET("/api/v1/networks")
    .catch((e: unknown) => e);
  assert.ok(error instanceof ServerError && error instanceof DompetError);
  assert.equal(error.status, 500);
  assert.equal(error.code, "INTERNAL_ERROR");
  assert.equal(error.requestId, "req-1");
  assert.equal(sent.length, 3);
});

test("a POST without idempotency on the service is never retried", async () => {
  assert.ok(!IDEMPOTENT_POSTS.has("/api/v1/smart-account"));
  const { fetch, sent } = scripted(() => failure(503, "DEADLINE_EXCEEDED"));
  const error = await app(fetch)
    .POST("/api/v1/smart-account", { body: { owner: { id: "0x" + "11".repeat(20), provider: "wallet" } } })
    .catch((e: unknown) => e);
  assert.ok(error instanceof ServerError);
  assert.equal(sent.length, 1);
  const { fetch: f2, sent: s2 } = scripted(() => {
    throw new TypeError("fetch failed");
  });
  const lost = await app(f2)
    .POST("/api/v1/webhooks/test")
    .catch((e: unknown) => e);
  assert.ok(lost instanceof ConnectionError);
  assert.equal(lost.status, 0);
  assert.equal(lost.code, "CONNECTION_ERROR");
  assert.equal(s2.length, 1);
});

test("a POST the service deduplicates is retried with the same Idempotency-Key", async () => {
  assert.ok(IDEMPOTENT_POSTS.has("/api/v1/custody/withdrawals"));
  const { fetch, sent } = scripted(
    () => failure(503, "DEADLINE_EXCEEDED"),
    () => envelope({ id: "w1", status: "pending" }),
  );
  const body = { accountId: "a", network: "local-a", tokenCode: "usdt", to: "0x" + "22".repeat(20), amount: "1" };
  await app(fetch).POST("/api/v1/custody/withdrawals", { body });
  assert.equal(sent.length, 2);
  assert.equal(sent[0]?.headers.get("idempotency-key"), sent[1]?.headers.get("idempotency-key"));
  assert.notEqual(sent[0]?.headers.get("x-timestamp"), sent[1]?.headers.get("x-timestamp"));
});

test("4xx answers are not retried and carry status, code and the envelope's data", async () => {
  const { fetch, sent } = scripted(
    () => failure(400, "VALIDATION_ERROR", { errors: [{ field: "limit", message: "too big" }] }),
    () => failure(409, "WEBHOOK_NOT_CONFIGURED"),
    () => new Response("<html>bad gateway</html>", { status: 404 }),
  );
  const d = app(fetch);
  const invalid = await d.GET("/api/v1/userOp", { params: { query: { limit: 101 } } }).catch((e: unknown) => e);
  assert.ok(invalid instanceof BadRequestError);
  assert.equal(invalid.code, "VALIDATION_ERROR");
  assert.deepEqual(invalid.errors, [{ field: "limit", message: "too big" }]);
  assert.equal(invalid.path, "/api/v1/userOp");
  const conflict = await d.POST("/api/v1/webhooks/test").catch((e: unknown) => e);
  assert.ok(conflict instanceof ConflictError && conflict.code === "WEBHOOK_NOT_CONFIGURED");
  assert.match(conflict.message, /409 WEBHOOK_NOT_CONFIGURED/);
  const notJson = await d.request("GET", "/nothing").catch((e: unknown) => e);
  assert.ok(notJson instanceof DompetError && notJson.status === 404 && notJson.code === "HTTP_404");
  assert.equal(sent.length, 3);
});

test("Retry-After is honoured as a floor", () => {
  const { fetch } = scripted();
  const transport = (app(fetch) as unknown as { transport: { backoff(a: number, r?: string | null): number } })
    .transport;
  assert.equal(transport.backoff(1, "3"), 3000);
  for (let attempt = 1; attempt < 10; attempt++) assert.ok(transport.backoff(attempt) <= 8000);
});

test("pages and items walk a list while hasNext", async () => {
  const page = (n: number, items: string[], hasNext: boolean) => () =>
    envelope({
      data: items.map((id) => ({ id })),
      pagination: { total: 5, page: n, limit: 2, totalPages: 3, hasNext, hasPrev: n > 1 },
    });
  const { fetch, sent } = scripted(
    page(1, ["a", "b"], true),
    page(2, ["c", "d"], true),
    page(3, ["e"], false),
    page(2, ["c", "d"], true),
    page(3, ["e"], false),
  );
  const d = app(fetch);
  const seen: string[] = [];
  for await (const op of d.items("/api/v1/userOp", { params: { query: { limit: 2 } } })) seen.push(op.id);
  assert.deepEqual(seen, ["a", "b", "c", "d", "e"]);
  const pages = [];
  for await (const p of d.pages("/api/v1/userOp", { params: { query: { limit: 2, page: 2 } } })) pages.push(p);
  assert.deepEqual(
    pages.map((p) => p.pagination.page),
    [2, 3],
  );
  assert.deepEqual(
    sent.map((s) => s.url.search),
    ["?limit=2&page=1", "?limit=2&page=2", "?limit=2&page=3", "?limit=2&page=2", "?limit=2&page=3"],
  );
});

test("login gives a session that sends Bearer + client secret and adopts the wallet token", async () => {
  const later = Math.floor(Date.now() / 1000) + 900;
  const access = jwt(later, "access");
  const wallet = jwt(later + 3600, "wallet");
  const { fetch, sent } = scripted(
    () => envelope({ isWalletCreated: false, accessToken: access, walletToken: null, refreshToken: "drt_1" }),
    () => envelope({ walletToken: wallet, refreshToken: "drt_2", secret0: "s", secret0Link: "l", address: "0xabc" }),
    () => envelope({ address: "0xabc", network: "local-a", balance: "0" }),
  );
  const seen: string[] = [];
  const d = new Dompet({ baseUrl: BASE, clientSecret: "dcs_1", fetch, ...noSleep });
  const user = await d.login("alice", { onTokens: (t) => seen.push(t.token) });
  assert.equal(sent[0]?.headers.get("x-client-secret"), "dcs_1");
  assert.equal(sent[0]?.body, '{"subId":"alice"}');
  assert.equal(user.tokens.token, access);
  assert.equal(user.tokens.expiresAt, later * 1000);
  const created = await user.POST("/api/v1/account/create", { body: {} });
  assert.equal(created.address, "0xabc");
  assert.equal(sent[1]?.headers.get("authorization"), `Bearer ${access}`);
  assert.equal(user.tokens.token, wallet);
  assert.equal(user.tokens.refreshToken, "drt_2");
  await user.POST("/api/v1/wallet/balance-coin", { body: { network: "local-a" } });
  assert.equal(sent[2]?.headers.get("authorization"), `Bearer ${wallet}`);
  assert.equal(sent[2]?.headers.get("x-client-secret"), "dcs_1");
  assert.deepEqual(seen, [wallet]);
});

test("a session refreshes a token about to expire, once for concurrent requests", async () => {
  const soon = Math.floor(Date.now() / 1000) + 5;
  const fresh = jwt(soon + 3600, "fresh");
  const { fetch, sent } = scripted(
    (s) => {
      assert.equal(s.url.pathname, "/api/v1/auth/refresh");
      assert.equal(s.headers.get("authorization"), null);
      assert.equal(s.body, '{"refreshToken":"drt_1"}');
      return envelope({ isWalletCreated: true, walletToken: fresh, refreshToken: "drt_2" });
    },
    () => envelope({ userId: "u" }),
    () => envelope({ userId: "u" }),
  );
  const d = new Dompet({ baseUrl: BASE, clientSecret: "dcs_1", fetch, ...noSleep });
  const user = d.resume({ token: jwt(soon, "old"), refreshToken: "drt_1" });
  await Promise.all([user.GET("/api/v1/auth/session"), user.GET("/api/v1/auth/session")]);
  assert.equal(sent.length, 3);
  assert.equal(sent[1]?.headers.get("authorization"), `Bearer ${fresh}`);
  assert.equal(sent[2]?.headers.get("authorization"), `Bearer ${fresh}`);
});

test("a 401 TOKEN_EXPIRED refreshes and tries once more; other 401s are thrown", async () => {
  const later = Math.floor(Date.now() / 1000) + 900;
  const fresh = jwt(later + 60, "fresh");
  const { fetch, sent } = scripted(
    () => failure(401, "TOKEN_EXPIRED"),
    () => envelope({ walletToken: fresh, refreshToken: "drt_2" }),
    () => envelope({ userId: "u" }),
    () => failure(401, "TOKEN_REVOKED"),
  );
  const d = new Dompet({ baseUrl: BASE, clientSecret: "dcs_1", fetch, ...noSleep });
  const user = d.resume({ token: jwt(later, "old"), refreshToken: "drt_1" });
  await user.GET("/api/v1/auth/session");
  assert.equal(sent[2]?.headers.get("authorization"), `Bearer ${fresh}`);
  const revoked = await user.GET("/api/v1/auth/session").catch((e: unknown) => e);
  assert.ok(revoked instanceof AuthenticationError && revoked.code === "TOKEN_REVOKED");
  assert.equal(sent.length, 4);
});

test("login without a client secret is a TypeError", async () => {
  const { fetch } = scripted();
  await assert.rejects(app(fetch).login("x"), TypeError);
});
