// EIP-712 through two implementations independent of the service, ethers v6 and viem:
// stdin {"action": "hash", "documents": [eth_signTypedData_v4 documents]}
//   stdout [{"ethers": {"digest", "domainSeparator"} | {"error"}, "viem": {"digest", "domainSeparator"} | {"error"}}]
// stdin {"action": "verify", "items": [{"document", "signature", "address"}]}
//   stdout [{"ethers": {"valid", "recovered"} | {"error"}, "viem": {"valid"} | {"error"}}]
// Each library gets the document the way an integrator hands it over. ethers takes no primaryType and refuses
// unused types, so it gets the struct types the primary type reaches, without EIP712Domain (it derives the
// domain type itself). viem takes the document as is, with its integers as bigint (viem does not parse strings).
import { TypedDataEncoder, verifyTypedData as ethersVerify } from "ethers";
import { hashDomain, hashTypedData, getTypesForEIP712Domain, verifyTypedData as viemVerify } from "viem";

const input = JSON.parse(await new Promise((resolve) => {
  let text = "";
  process.stdin.on("data", (chunk) => (text += chunk));
  process.stdin.on("end", () => resolve(text));
}));

const baseOf = (type) => type.replace(/\[.*$/, "");

function reachable(types, primary) {
  const used = {};
  const pending = [primary];
  while (pending.length) {
    const name = pending.pop();
    if (name in used || !(name in types) || name === "EIP712Domain") continue;
    used[name] = types[name];
    for (const field of types[name]) pending.push(baseOf(field.type));
  }
  return used;
}

const INTEGER = /^u?int\d*$/;

// The document's values with every integer (by its declared type) as a bigint, for viem.
function bigints(types, type, value) {
  if (value === null || value === undefined) return value;
  if (type.endsWith("]")) {
    const inner = type.slice(0, type.lastIndexOf("["));
    return Array.isArray(value) ? value.map((item) => bigints(types, inner, item)) : value;
  }
  if (type in types && typeof value === "object" && !Array.isArray(value)) {
    const out = { ...value };
    for (const field of types[type]) {
      if (field.name in value) out[field.name] = bigints(types, field.type, value[field.name]);
    }
    return out;
  }
  if (INTEGER.test(type) && (typeof value === "number" || typeof value === "string")) {
    try {
      return BigInt(value);
    } catch {
      return value;
    }
  }
  return value;
}

function forViem(document) {
  const domain = { ...document.domain };
  if (typeof domain.chainId === "string" || typeof domain.chainId === "number") {
    try {
      domain.chainId = BigInt(domain.chainId);
    } catch {}
  }
  return {
    domain,
    types: document.types,
    primaryType: document.primaryType,
    message: bigints(document.types, document.primaryType, document.message),
  };
}

function forEthers(document) {
  return {
    domain: document.domain,
    types: reachable(document.types, document.primaryType),
    message: document.message,
  };
}

function attempt(work) {
  try {
    return work();
  } catch (error) {
    return { error: String(error.shortMessage ?? error.message ?? error).split("\n")[0] };
  }
}

async function attemptAsync(work) {
  try {
    return await work();
  } catch (error) {
    return { error: String(error.shortMessage ?? error.message ?? error).split("\n")[0] };
  }
}

function hashes(document) {
  const ethers = attempt(() => {
    const { domain, types, message } = forEthers(document);
    return {
      digest: TypedDataEncoder.hash(domain, types, message),
      domainSeparator: TypedDataEncoder.hashDomain(domain),
    };
  });
  const viem = attempt(() => {
    const parameters = forViem(document);
    const domainTypes = parameters.types.EIP712Domain ?? getTypesForEIP712Domain({ domain: parameters.domain });
    return {
      digest: hashTypedData(parameters),
      domainSeparator: hashDomain({
        domain: parameters.domain,
        types: { ...parameters.types, EIP712Domain: domainTypes },
      }),
    };
  });
  return { ethers, viem };
}

async function verify({ document, signature, address }) {
  const ethers = attempt(() => {
    const { domain, types, message } = forEthers(document);
    const recovered = ethersVerify(domain, types, message, signature);
    return { valid: recovered.toLowerCase() === address.toLowerCase(), recovered };
  });
  const viem = await attemptAsync(async () => ({
    valid: await viemVerify({ ...forViem(document), address, signature }),
  }));
  return { ethers, viem };
}

let output;
if (input.action === "hash") {
  output = input.documents.map(hashes);
} else if (input.action === "verify") {
  output = [];
  for (const item of input.items) output.push(await verify(item));
} else {
  throw new Error(`unknown action ${input.action}`);
}
process.stdout.write(JSON.stringify(output));
