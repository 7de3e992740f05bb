import assert from "node:assert/strict";
import { test } from "node:test";

import { Dompet, RequestSigner, canonicalQuery, timestampNow } from "../src/index.js";
import { envelope, noSleep, scripted } from "./helpers.js";

const APP_ID = "0b7d5f3e-5a8c-4c1e-9d1a-2f6b8e4c7a10";
const SECRET = "das_example-secret-do-not-use";
const bytes = (s: string) => new TextEncoder().encode(s);

test("the worked examples of docs/authentication.md", async () => {
  const signer = new RequestSigner(APP_ID, SECRET);
  const ts = "2026-11-22T10:00:00Z";
  assert.equal(
    await signer.signature(ts, "GET", "/api/v1/auth/whoami", bytes("")),
    "b0c8caa60b57ad2e5120819c513ff4c175314beb35696f178acc76bad9d3ef52",
  );
  assert.equal(
    await signer.signature(ts, "put", "/api/v1/webhooks/settings", bytes('{"url":"https://example.com/hook"}')),
    "ef89b4e64578d6c74ec4a83818384bb1c4d5ab64bfb6e1db9cd9775abebdb473",
  );
  assert.deepEqual(await signer.headers("GET", "/api/v1/auth/whoami", bytes(""), ts), {
    "X-APP-ID": APP_ID,
    "X-TIMESTAMP": ts,
    "X-SIGNATURE": "b0c8caa60b57ad2e5120819c513ff4c175314beb35696f178acc76bad9d3ef52",
  });
});

test("the canonical query: grouped by first appearance, RFC 3986, a plus stays a plus", () => {
  assert.equal(canonicalQuery("b=2&a=1&b=3"), "b=2&b=3&a=1");
  assert.equal(canonicalQuery("?q=a b&x=!*'()&p=1+1&flag"), "q=a%20b&x=%21%2A%27%28%29&p=1%2B1&flag=");
  assert.equal(canonicalQuery("name=%7Euser%2Fx"), "name=~user%2Fx");
  assert.equal(canonicalQuery(""), "");
});

test("timestamps are RFC 3339 and differ within one millisecond", () => {
  const now = new Date("2026-11-22T10:00:00.123Z");
  const [a, b] = [timestampNow(now), timestampNow(now)];
  assert.match(a, /^2026-11-22T10:00:00\.123\d{6}Z$/);
  assert.notEqual(a, b);
});

test("a signed request: what is signed is what is sent, the stage prefix is not signed", async () => {
  const { fetch, sent } = scripted(() => envelope({ appId: APP_ID }));
  const d = new Dompet({ baseUrl: "https://api.example.com/prod/", appId: APP_ID, appSecret: SECRET, fetch, ...noSleep });
  await d.GET("/api/v1/custody/invoices", { params: { query: { status: "paid", reference: "a b", page: 2 } } });
  const [request] = sent;
  assert.ok(request);
  assert.equal(request.url.pathname, "/prod/api/v1/custody/invoices");
  assert.equal(request.url.search, "?status=paid&reference=a%20b&page=2");
  const ts = request.headers.get("x-timestamp") ?? "";
  const expected = await new RequestSigner(APP_ID, SECRET).signature(
    ts,
    "GET",
    "/api/v1/custody/invoices?status=paid&reference=a%20b&page=2",
    bytes(""),
  );
  assert.equal(request.headers.get("x-signature"), expected);
  assert.equal(request.headers.get("x-app-id"), APP_ID);
  assert.equal(request.headers.get("x-client-secret"), null);
});

test("a body is signed byte for byte", async () => {
  const { fetch, sent } = scripted(() => envelope({ url: "https://example.com/hook", enabled: true }));
  const d = new Dompet({ baseUrl: "http://localhost:1", appId: APP_ID, appSecret: SECRET, fetch, ...noSleep });
  const settings = await d.PUT("/api/v1/webhooks/settings", { body: { url: "https://example.com/hook" } });
  assert.equal(settings.url, "https://example.com/hook");
  const [request] = sent;
  assert.ok(request);
  assert.equal(request.body, '{"url":"https://example.com/hook"}');
  const ts = request.headers.get("x-timestamp") ?? "";
  assert.equal(
    request.headers.get("x-signature"),
    await new RequestSigner(APP_ID, SECRET).signature(ts, "PUT", "/api/v1/webhooks/settings", bytes(request.body)),
  );
});

test("a client needs credentials", () => {
  assert.throws(() => new Dompet({ baseUrl: "http://localhost:1" }), TypeError);
});
