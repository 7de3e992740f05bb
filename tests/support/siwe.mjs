// Sign-In with Ethereum (EIP-4361) through viem, an implementation independent of the service:
// stdin {"action": "create", "fields": {...createSiweMessage parameters; issuedAt/expirationTime ISO strings}}
//   stdout {"message"}
// stdin {"action": "verify", "rpc", "chainId", "message", "signature", "domain", "nonce", "address"}
//   stdout {"valid", "recovered"} (valid: verifySiweMessage, which parses and validates the message's fields
//   against domain/nonce/address/time and checks the signature through the chain's client)
import { createPublicClient, http, recoverMessageAddress } from "viem";
import { createSiweMessage, verifySiweMessage } from "viem/siwe";

const input = JSON.parse(await new Promise((resolve) => {
  let text = "";
  process.stdin.on("data", (chunk) => (text += chunk));
  process.stdin.on("end", () => resolve(text));
}));

const dates = (fields) => Object.fromEntries(
  Object.entries(fields).map(([k, v]) => [k, ["issuedAt", "expirationTime", "notBefore"].includes(k) ? new Date(v) : v]),
);

let output;
if (input.action === "create") {
  output = { message: createSiweMessage(dates(input.fields)) };
} else if (input.action === "verify") {
  const chain = {
    id: input.chainId,
    name: "local",
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls: { default: { http: [input.rpc] } },
  };
  const client = createPublicClient({ chain, transport: http(input.rpc) });
  const valid = await verifySiweMessage(client, {
    message: input.message,
    signature: input.signature,
    domain: input.domain,
    nonce: input.nonce,
    address: input.address,
  });
  const recovered = await recoverMessageAddress({ message: input.message, signature: input.signature });
  output = { valid, recovered };
} else {
  throw new Error(`unknown action ${input.action}`);
}
process.stdout.write(JSON.stringify(output));
