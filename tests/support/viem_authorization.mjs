// EIP-7702 authorizations through viem, independent of the service:
// stdin {"action": "hash", "tuples": [{"chainId", "address", "nonce"}]} -> stdout ["0x<hash>", ...]
// stdin {"action": "verify", "items": [{"signer", "chainId", "address", "nonce", "yParity", "r", "s"}]}
//   -> stdout [{"valid": bool, "recovered": address} | {"error"}]
// Integers come as decimal strings (viem takes numbers: the tests keep them exact).
import { hashAuthorization, recoverAuthorizationAddress, verifyAuthorization } from "viem/utils";

const input = JSON.parse(await new Promise((resolve) => {
  let text = "";
  process.stdin.on("data", (chunk) => (text += chunk));
  process.stdin.on("end", () => resolve(text));
}));

const tuple = (t) => ({ chainId: Number(t.chainId), address: t.address, nonce: Number(t.nonce) });

let output;
if (input.action === "hash") {
  output = input.tuples.map((t) => hashAuthorization(tuple(t)));
} else {
  output = [];
  for (const item of input.items) {
    const authorization = { ...tuple(item), yParity: Number(item.yParity), r: item.r, s: item.s };
    try {
      const valid = await verifyAuthorization({ address: item.signer, authorization });
      const recovered = await recoverAuthorizationAddress({ authorization });
      output.push({ valid, recovered });
    } catch (error) {
      output.push({ error: String(error.message || error).slice(0, 300) });
    }
  }
}
process.stdout.write(JSON.stringify(output));
