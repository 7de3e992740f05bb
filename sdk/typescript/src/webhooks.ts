/**
 * Verifying a webhook delivery (docs/webhooks.md): Ed25519 over `X-Service-Event-Id + "." + X-Service-Timestamp +
 * "." + raw body`, the timestamp within 5 minutes of now, and the body's `id` equal to the header.
 */
import { createPublicKey, verify, type KeyObject } from "node:crypto";

/** A delivered event: the interface's envelope. */
export interface WebhookEvent<T = Record<string, unknown>> {
  apiVersion: string;
  id: string;
  type: string;
  createdAt: string;
  data: T;
}

export type WebhookFailure = "MISSING_HEADERS" | "MALFORMED" | "STALE_TIMESTAMP" | "INVALID_SIGNATURE" | "ID_MISMATCH";

export class WebhookVerificationError extends Error {
  constructor(
    readonly reason: WebhookFailure,
    message: string,
  ) {
    super(`${reason}: ${message}`);
    this.name = "WebhookVerificationError";
  }
}

/** The `data` of `GET /api/v1/webhooks/public-key`: the current key and the ones still valid after a rotation. */
export interface WebhookPublicKeys {
  publicKey: string;
  keyId?: string;
  previous?: readonly { publicKey: string; keyId?: string }[];
}

/** A base64 key, several, or the public-key answer (its key ids then choose the key by X-Service-Key-Id). */
export type WebhookKeys = string | readonly string[] | WebhookPublicKeys;

export type HeaderSource = Headers | Record<string, string | string[] | undefined>;

export interface VerifyOptions {
  /** Largest accepted distance between the delivery's timestamp and now, in seconds (default 300). */
  toleranceSeconds?: number;
  /** Now, in seconds since the epoch (default: the clock). */
  now?: number;
}

const SPKI_ED25519 = Buffer.from("302a300506032b6570032100", "hex");

function header(headers: HeaderSource, name: string): string | undefined {
  if (headers instanceof Headers) return headers.get(name) ?? undefined;
  const key = Object.keys(headers).find((k) => k.toLowerCase() === name);
  const value = key === undefined ? undefined : headers[key];
  return Array.isArray(value) ? value[0] : value;
}

function publicKey(base64: string): KeyObject {
  const raw = Buffer.from(base64, "base64");
  if (raw.length !== 32) throw new WebhookVerificationError("MALFORMED", "a public key is 32 bytes, base64");
  return createPublicKey({ key: Buffer.concat([SPKI_ED25519, raw]), format: "der", type: "spki" });
}

function candidateKeys(keys: WebhookKeys, keyId: string | undefined): readonly string[] {
  if (typeof keys === "string") return [keys];
  if (!("publicKey" in keys)) return keys as readonly string[];
  const all = [{ publicKey: keys.publicKey, keyId: keys.keyId }, ...(keys.previous ?? [])];
  const named = all.filter((k) => keyId !== undefined && k.keyId === keyId);
  return (named.length ? named : all).map((k) => k.publicKey);
}

/**
 * Checks a delivery and returns its event; throws WebhookVerificationError otherwise. `body` is the raw body as
 * received (before any JSON parsing); `keys` the `data` of `GET /api/v1/webhooks/public-key` (deliveries signed with a
 * previous key still verify), or a base64 key, or a list of them.
 */
export function verifyWebhook<T = Record<string, unknown>>(
  body: Uint8Array | string,
  headers: HeaderSource,
  keys: WebhookKeys,
  options: VerifyOptions = {},
): WebhookEvent<T> {
  const id = header(headers, "x-service-event-id");
  const timestamp = header(headers, "x-service-timestamp");
  const signature = header(headers, "x-service-signature");
  if (!id || !timestamp || !signature) {
    throw new WebhookVerificationError("MISSING_HEADERS", "X-Service-Event-Id, -Timestamp and -Signature are needed");
  }
  if (!/^\d+$/.test(timestamp)) throw new WebhookVerificationError("MALFORMED", "X-Service-Timestamp is not a number");
  const now = options.now ?? Date.now() / 1000;
  if (Math.abs(now - Number(timestamp)) > (options.toleranceSeconds ?? 300)) {
    throw new WebhookVerificationError("STALE_TIMESTAMP", "the delivery was signed too long ago (or ahead)");
  }
  const raw = typeof body === "string" ? Buffer.from(body, "utf8") : Buffer.from(body.buffer, body.byteOffset, body.length);
  const signed = Buffer.concat([Buffer.from(`${id}.${timestamp}.`, "utf8"), raw]);
  const sig = Buffer.from(signature, "base64");
  const candidates = candidateKeys(keys, header(headers, "x-service-key-id"));
  if (sig.length !== 64 || !candidates.some((key) => verify(null, signed, publicKey(key), sig))) {
    throw new WebhookVerificationError("INVALID_SIGNATURE", "the signature does not verify with the app's key");
  }
  let event: WebhookEvent<T>;
  try {
    event = JSON.parse(raw.toString("utf8")) as WebhookEvent<T>;
  } catch {
    throw new WebhookVerificationError("MALFORMED", "the body is not JSON");
  }
  if (!event || event.id !== id) {
    throw new WebhookVerificationError("ID_MISMATCH", "the body's id is not X-Service-Event-Id");
  }
  return event;
}
