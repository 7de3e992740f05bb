#!/usr/bin/env node
// Sign a Dompet signing policy with your app's policy key, ready for `PUT /api/v1/policies` (docs/policies.md).
//
// The policy key is an Ed25519 key that only you hold. Dompet knows only its public key, which the operator
// registers (`python -m chalicelib.operator set-policy-key --app-id APP --client-id CLIENT --public-key BASE64`).
// The signature covers the RFC 8785 (JCS) canonical JSON of `{"appId": APP_ID, "policy": <the policy object>}`, so
// it sets the policy of that app only, even where one key is registered for several apps. The body can be formatted
// any way you like, because Dompet canonicalizes the policy it receives before it checks the signature.
//
//   npm install canonicalize@4.0.0                               # RFC 8785 by one of its authors; Node >= 18
//   node sign-policy.mjs new-key > policy-key.b64                # once: the seed of a new key (keep it secret)
//   node sign-policy.mjs sign APP_ID policy.json policy-key.b64 > body.json
//   node sign-policy.mjs rotate APP_ID NEW_PUBLIC_KEY SEQUENCE policy-key.b64 > rotation.json
//
// `sign` and `rotate` print the public key of the key they sign with on stderr, so you can register it or check it.
// `rotate` signs a new public key with the current key, for `PUT /api/v1/policies/key`. SEQUENCE is the current
// sequence + 1. The operator's registration is sequence 1, and each rotation's answer gives the new sequence.
import { createPrivateKey, createPublicKey, generateKeyPairSync, sign } from "node:crypto";
import { readFileSync } from "node:fs";
import canonicalize from "canonicalize";

// Node takes a raw Ed25519 seed as PKCS#8 DER: this fixed prefix followed by the 32 seed bytes.
const PKCS8_ED25519_PREFIX = Buffer.from("302e020100300506032b657004220420", "hex");

function loadKey(path) {
  const seed = Buffer.from(readFileSync(path, "utf8").trim(), "base64");
  if (seed.length !== 32) throw new Error("the key file must hold the base64 of a 32-byte Ed25519 seed");
  return createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: "der", type: "pkcs8" });
}

function publicKeyBase64(privateKey) {
  // The raw 32-byte public key is the end of its SPKI DER encoding.
  return createPublicKey(privateKey).export({ format: "der", type: "spki" }).subarray(-32).toString("base64");
}

function signMessage(privateKey, message) {
  // Sign the canonical bytes, not the file's own formatting: the key order, spacing and escapes are fixed by JCS.
  return sign(null, Buffer.from(canonicalize(message), "utf8"), privateKey).toString("base64");
}

const [command, ...args] = process.argv.slice(2);
let key;
if (command === "new-key") {
  const { privateKey } = generateKeyPairSync("ed25519");
  console.log(Buffer.from(privateKey.export({ format: "jwk" }).d, "base64url").toString("base64"));
} else if (command === "sign" && args.length === 3) {
  key = loadKey(args[2]);
  const [appId, policyFile] = args;
  const policy = JSON.parse(readFileSync(policyFile, "utf8"));
  // The exact message Dompet verifies: this policy, for this app only.
  console.log(JSON.stringify({ policy, signature: signMessage(key, { appId, policy }) }));
} else if (command === "rotate" && args.length === 4) {
  key = loadKey(args[3]);
  const [appId, publicKey, sequence] = args;
  // The exact message Dompet verifies: the current key approves the new one, for this app, once (sequence).
  const message = { action: "rotate-policy-key", appId, publicKey, sequence: Number(sequence) };
  console.log(JSON.stringify({ publicKey, signature: signMessage(key, message) }));
} else {
  console.error("usage: sign-policy.mjs new-key | sign APP_ID POLICY_JSON KEY_FILE | rotate APP_ID NEW_PUBLIC_KEY SEQUENCE KEY_FILE");
  process.exit(2);
}
if (key) console.error(`public key: ${publicKeyBase64(key)}`);
