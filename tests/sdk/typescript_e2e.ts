// The TypeScript SDK against the local stack (`make dev`), as an integrator uses it: compiled with `tsc --strict`
// in a fresh project that installed `@dompet/sdk` (tests/sdk/test_typescript_sdk.py). The stack is described by
// the JSON in DOMPET_E2E: {apiUrl, appId, appSecret, clientSecret, rpcUrl, network, chainId, usdt, pool}.
// Prints one JSON line per step and a final {"done": ...} line; any failure exits non-zero.
import assert from "node:assert/strict";
import { randomBytes, randomUUID } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";

import {
  ConflictError,
  Dompet,
  WEBHOOK_API_VERSION,
  WebhookVerificationError,
  verifyWebhook,
  type WebhookEvent,
} from "@dompet/sdk";

interface Stack {
  apiUrl: string;
  appId: string;
  appSecret: string;
  clientSecret: string;
  rpcUrl: string;
  network: string;
  chainId: number;
  usdt: string;
  pool: string;
}
const stack = JSON.parse(process.env["DOMPET_E2E"] ?? "") as Stack;
const started = Date.now();
const step = (name: string, detail: Record<string, unknown> = {}) =>
  console.log(JSON.stringify({ step: name, ...detail, elapsedS: (Date.now() - started) / 1000 }));
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function until<T>(what: string, seconds: number, probe: () => Promise<T | undefined>): Promise<T> {
  const deadline = Date.now() + seconds * 1000;
  for (;;) {
    const found = await probe();
    if (found !== undefined) return found;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(500);
  }
}

async function rpc(method: string, params: unknown[]): Promise<unknown> {
  const answer = await fetch(stack.rpcUrl, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  const body = (await answer.json()) as { result?: unknown; error?: unknown };
  if (body.error) throw new Error(`${method}: ${JSON.stringify(body.error)}`);
  return body.result;
}

const word = (hex: string) => hex.replace(/^0x/, "").toLowerCase().padStart(64, "0");
const amount = (n: bigint) => n.toString(16).padStart(64, "0");

/** An anvil account sends itself `units` of test USDT and pays them into the pool; its claim is personal_sign'ed. */
async function poolTransfer(units: bigint): Promise<{ txHash: string; signature: string }> {
  const [, , , , , , , sender] = (await rpc("eth_accounts", [])) as string[];
  assert.ok(sender);
  const send = async (data: string) => {
    const hash = (await rpc("eth_sendTransaction", [{ from: sender, to: stack.usdt, data }])) as string;
    await until("the pool transfer", 30, async () => ((await rpc("eth_getTransactionReceipt", [hash])) ? hash : undefined));
    return hash;
  };
  await send(`0x40c10f19${word(sender)}${amount(units)}`); // mint(sender, units)
  const txHash = await send(`0xa9059cbb${word(stack.pool)}${amount(units)}`); // transfer(pool, units)
  const claim = Buffer.from(`${stack.chainId}.${txHash}`).toString("hex");
  const signature = (await rpc("personal_sign", [`0x${claim}`, sender])) as string;
  return { txHash, signature };
}

// ------------------------------------------------------------------------------------------------ the clients
const app = new Dompet({ baseUrl: stack.apiUrl, appId: stack.appId, appSecret: stack.appSecret }); // Family S
const backend = new Dompet({ baseUrl: stack.apiUrl, clientSecret: stack.clientSecret }); // Family W

const whoami = await app.GET("/api/v1/auth/whoami");
assert.equal(whoami.appId, stack.appId);
step("whoami", { appId: whoami.appId });

// ------------------------------------------------------------------ a user, their MPC wallet, a coin send
const subId = `ts-sdk-${randomUUID()}`;
let persisted = 0;
const user = await backend.login(subId, { onTokens: () => persisted++ });
const session = await user.GET("/api/v1/auth/session");
assert.equal(session.subId, subId);
assert.equal(session.tokenType, "access");
step("login", { subId, tokenType: session.tokenType });

const wallet = await user.POST("/api/v1/account/create", { body: {} });
assert.match(wallet.address, /^0x[0-9a-fA-F]{40}$/);
assert.equal(user.tokens.token, wallet.walletToken); // the session adopted the wallet token
assert.equal(persisted, 1);
const again = await user.POST("/api/v1/account/create", { body: {} }).catch((e: unknown) => e);
assert.ok(again instanceof ConflictError, String(again));
step("wallet", { address: wallet.address, second: again.code });

await rpc("anvil_setBalance", [wallet.address, "0xde0b6b3a7640000"]); // 1 ETH
const to = "0x000000000000000000000000000000000000dEaD";
const sent = await user.POST("/api/v1/wallet/send-coin", { body: { network: stack.network, to, amount: "0.1" } });
const hash = sent.txReceipt.hash;
const mined = await until("the send to be mined", 90, async () => {
  const view = await user.GET("/api/v1/wallet/transactions/{hash}", { params: { path: { hash } } });
  return view.status === "pending" ? undefined : view;
});
assert.equal(mined.status, "mined");
assert.ok(Number(mined.blockNumber) >= 1);
step("send-coin", { hash, status: mined.status, blockNumber: mined.blockNumber });

const coin = await user.POST("/api/v1/wallet/balance-coin", { body: { network: stack.network } });
assert.equal(coin.address.toLowerCase(), wallet.address.toLowerCase());
assert.ok(Number(coin.balance) < 0.9 && Number(coin.balance) > 0.89, coin.balance); // 1 - 0.1 - gas
const token = await user.POST("/api/v1/wallet/balance-token", { body: { network: stack.network, tokenAddress: stack.usdt } });
assert.equal(token.balance, "0");
step("balances", { coin: coin.balance, coinSymbol: coin.symbol, token: token.balance, tokenSymbol: token.symbol });

await user.refresh(); // the session's refresh token, rotated; the new token works
const refreshed = await user.GET("/api/v1/auth/session");
assert.equal(refreshed.tokenType, "wallet");
assert.equal(persisted, 2);
step("refresh", { tokenType: refreshed.tokenType });

// ------------------------------------------------- a smart account owned by the MPC wallet, user operations
const owner = await app.POST("/api/v1/smart-account", { body: { owner: { id: wallet.address, provider: "wallet" } } });
const account = owner.accounts.find((a) => a.chainId === stack.chainId);
assert.ok(account, JSON.stringify(owner.accounts));
step("smart-account", { ownerId: owner.id, aaAddress: account.aaAddress, chains: owner.accounts.map((a) => a.chainId) });

const topUp = await poolTransfer(20_000_000n); // 20 USDT into the owner's gas tank
await app.POST("/api/v1/smart-account/topUp", {
  body: {
    ...topUp,
    chainId: stack.chainId,
    tokenAddress: stack.usdt,
    poolAddress: stack.pool,
    immediate: true,
    receiverOwnerId: owner.id,
  },
});
step("top-up", { txHash: topUp.txHash });

async function userOperation(): Promise<string> {
  const built = await app.POST("/api/v1/userOp/sendCoin/hash", { body: { accountId: account!.id, to, amount: "0" } });
  // The owner is the MPC wallet: it signs the operation's hash (EIP-191 over its 32 bytes).
  const signed = await user.POST("/api/v1/wallet/sign-message", { body: { message: built.hash, encoding: "hex" } });
  await app.POST("/api/v1/userOp/submit", {
    body: { userOpId: built.userOpId, hash: built.hash, signature: signed.signature, isSponsored: false },
  });
  return built.userOpId;
}
const settled = (id: string) =>
  until(`user operation ${id}`, 90, async () => {
    const op = await app.GET("/api/v1/userOp/{id}", { params: { path: { id } } });
    return op.status === "success" || op.status === "failed" ? op : undefined;
  });
const first = await userOperation(); // deploys the account
assert.equal((await settled(first)).status, "success");
const later = [await userOperation(), await userOperation()];
for (const op of await Promise.all(later.map(settled))) assert.equal(op.status, "success", JSON.stringify(op));
const ours = new Set([first, ...later]);
step("user-operations", { ids: [...ours] });

const pages = [];
for await (const page of app.pages("/api/v1/userOp/owner/{ownerId}", { params: { path: { ownerId: owner.id }, query: { limit: 2 } } })) {
  pages.push(page.data.map((op) => op.id));
  assert.equal(page.pagination.total, 3);
}
assert.deepEqual(pages.map((p) => p.length), [2, 1]);
assert.deepEqual(new Set(pages.flat()), ours);
const newestFirst = pages.flat();
assert.equal(newestFirst[2], first);
let listed = 0;
for await (const op of app.items("/api/v1/userOp", { params: { query: { limit: 100 } } })) if (ours.has(op.id)) listed++;
assert.equal(listed, 3);
step("pages", { pages });

// ------------------------------------------------------------------------- webhooks: a receiver that verifies
const keys = await app.GET("/api/v1/webhooks/public-key");
const accepted: WebhookEvent[] = [];
const refused: string[] = [];
const read = async (request: IncomingMessage) => {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
};
const receiver = createServer(async (request, response) => {
  const body = await read(request);
  try {
    accepted.push(verifyWebhook(body, request.headers, keys));
    response.writeHead(204).end();
  } catch (error) {
    refused.push(error instanceof WebhookVerificationError ? error.reason : String(error));
    response.writeHead(401).end();
  }
});
await new Promise<void>((resolve) => receiver.listen(0, "127.0.0.1", resolve));
const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`;
try {
  const settings = await app.PUT("/api/v1/webhooks/settings", { body: { url } });
  assert.equal(settings.url, url);
  const queued = await app.POST("/api/v1/webhooks/test");
  const event = await until("webhook.test to arrive", 60, async () => accepted.find((e) => e.id === queued.id));
  assert.equal(event.type, "webhook.test");
  assert.equal(event.apiVersion, WEBHOOK_API_VERSION);
  assert.equal((event.data as { appId?: string }).appId, stack.appId);
  step("webhook", { id: event.id, type: event.type, apiVersion: event.apiVersion });

  // A forged delivery: the genuine body with another event id and a signature by a key that is not the app's.
  const forgedBody = JSON.stringify({ ...event, id: randomUUID(), data: { appId: stack.appId, message: "pay me" } });
  const forged = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-service-event-id": JSON.parse(forgedBody).id,
      "x-service-timestamp": String(Math.floor(Date.now() / 1000)),
      "x-service-signature": randomBytes(64).toString("base64"),
      "x-service-key-id": keys.keyId,
    },
    body: forgedBody,
  });
  assert.equal(forged.status, 401);
  assert.deepEqual(refused, ["INVALID_SIGNATURE"]);
  assert.ok(!accepted.some((e) => e.id === JSON.parse(forgedBody).id));
  step("forged", { status: forged.status, reason: refused[0] });
} finally {
  await app.DELETE("/api/v1/webhooks/settings");
  receiver.close();
}

console.log(JSON.stringify({ done: true, subId, wallet: wallet.address, userOps: [...ours] }));
