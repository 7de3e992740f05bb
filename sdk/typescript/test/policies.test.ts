import assert from "node:assert/strict";
import { createPublicKey, verify } from "node:crypto";
import { test } from "node:test";

import { loadPolicyKey, policyPublicKey, signKeyRotation, signPolicy } from "../src/index.js";

// One seed, signed by the Python SDK (dompet.policies) and verified by the service's own check in tests/sdk: Ed25519
// is deterministic, so equal signatures mean both SDKs sign the same canonical bytes.
const SEED = "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8=";
const PUBLIC_KEY = "A6EHv/POEL4dcN0Y50vAmWfk1jCbpQ1fHdyGZBJVMbg=";
const POLICY_SIGNATURE =
  "PwxZy8afiAkZ3gS04vDXE+tFGr8XVj7Y4oC1ECu99UwP/VhOG2KkEzfsaeA1nFMKwNQ2mqXX9IW0xOw/EFpRBQ==";
const ROTATION_SIGNATURE =
  "ECIfS7VDu9mZdiltHCPtUySo6jdgy0T5J6WbeNC/Z5TKBm9pfzOd4H8tSRg0QUlXt5eouDiLO6ZDQ3Nw/oV2BQ==";

test("a policy is signed for its app over the canonical JSON of {appId, policy}", () => {
  const key = loadPolicyKey(SEED);
  assert.equal(policyPublicKey(key), PUBLIC_KEY);
  // Member order is the caller's: the signature is over the canonical form.
  const body = signPolicy("app_1", { networks: ["local-a"], default: "deny", version: 1 }, key);
  assert.equal(body.signature, POLICY_SIGNATURE);
  assert.deepEqual(body.policy, { networks: ["local-a"], default: "deny", version: 1 });
  const message = '{"appId":"app_1","policy":{"default":"deny","networks":["local-a"],"version":1}}';
  const signature = Buffer.from(body.signature, "base64");
  assert.ok(verify(null, Buffer.from(message), createPublicKey(key), signature));
  const elsewhere = message.replace("app_1", "app_2");
  assert.ok(!verify(null, Buffer.from(elsewhere), createPublicKey(key), signature));
});

test("a key rotation is signed by the current key for the next sequence", () => {
  const body = signKeyRotation("app_1", `${"A".repeat(43)}=`, 2, loadPolicyKey(SEED));
  assert.deepEqual(body, { publicKey: `${"A".repeat(43)}=`, signature: ROTATION_SIGNATURE });
});

test("a seed that is not 32 bytes is refused", () => {
  assert.throws(() => loadPolicyKey("AAEC"), TypeError);
});
