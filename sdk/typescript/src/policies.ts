/**
 * Signing an app's signing policy with its policy key (docs/policies.md, "Setting up: the policy key").
 *
 * The policy key is an Ed25519 key that only the integrator holds; the operator registers its public half. A policy
 * is signed over the RFC 8785 (JCS) canonical JSON of `{appId, policy}`, so the signature sets that document on that
 * app only, even where one key is registered for several apps. A rotation is signed by the current key over
 * `{action: "rotate-policy-key", appId, publicKey, sequence}`.
 */
import { createPrivateKey, createPublicKey, sign, type KeyObject } from "node:crypto";

import canonicalize from "canonicalize";

/** Node takes a raw Ed25519 seed as PKCS#8 DER: this fixed prefix followed by the 32 seed bytes. */
const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

export type PolicyDocument = Record<string, unknown>;

/** The body of `PUT /api/v1/policies`. */
export interface SignedPolicy {
  policy: PolicyDocument;
  signature: string;
}

/** The body of `PUT /api/v1/policies/key`. */
export interface SignedKeyRotation {
  publicKey: string;
  signature: string;
}

/** The key of a 32-byte Ed25519 seed, base64 (what docs/examples/sign-policy.mjs `new-key` prints). */
export function loadPolicyKey(seedBase64: string): KeyObject {
  const seed = Buffer.from(seedBase64.trim(), "base64");
  if (seed.length !== 32) throw new TypeError("a policy key is the base64 of a 32-byte Ed25519 seed");
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: "der", type: "pkcs8" });
}

/** The base64 public key the operator registers (`set-policy-key --public-key`). */
export function policyPublicKey(key: KeyObject): string {
  // The raw 32-byte public key is the end of its SPKI DER encoding.
  return createPublicKey(key).export({ format: "der", type: "spki" }).subarray(-32).toString("base64");
}

function signCanonical(key: KeyObject, message: unknown): string {
  const text = canonicalize(message);
  if (text === undefined) throw new TypeError("not a JSON value");
  return sign(null, Buffer.from(text, "utf8"), key).toString("base64");
}

/** The body of `PUT /api/v1/policies` that sets `policy` on the app `appId` (and on no other app). */
export function signPolicy(appId: string, policy: PolicyDocument, key: KeyObject): SignedPolicy {
  return { policy, signature: signCanonical(key, { appId, policy }) };
}

/**
 * The body of `PUT /api/v1/policies/key`: the CURRENT key approves `newPublicKey` (base64) as the app's key number
 * `sequence` (the current key's sequence + 1; the operator's registration is 1).
 */
export function signKeyRotation(
  appId: string,
  newPublicKey: string,
  sequence: number,
  key: KeyObject,
): SignedKeyRotation {
  const message = { action: "rotate-policy-key", appId, publicKey: newPublicKey, sequence };
  return { publicKey: newPublicKey, signature: signCanonical(key, message) };
}
