// A real ERC-4337 client (viem + permissionless) doing the wallet's side of a user operation the service built:
// it derives the SimpleAccount address, hashes the operation, and signs it the way a wallet does.
// stdin: {rpc, chainId, entryPoint, factory, ownerKey, userOp (the unpacked v0.7 JSON-RPC form)}
// stdout: {address, userOpHash, signature}
import { createPublicClient, http } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { getUserOperationHash } from "viem/account-abstraction";
import { toSimpleSmartAccount } from "permissionless/accounts";

const input = JSON.parse(await new Promise((resolve) => {
  let text = "";
  process.stdin.on("data", (chunk) => (text += chunk));
  process.stdin.on("end", () => resolve(text));
}));
const chain = {
  id: input.chainId,
  name: "local",
  nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
  rpcUrls: { default: { http: [input.rpc] } },
};
const client = createPublicClient({ chain, transport: http(input.rpc) });
const account = await toSimpleSmartAccount({
  client,
  owner: privateKeyToAccount(input.ownerKey),
  factoryAddress: input.factory,
  entryPoint: { address: input.entryPoint, version: "0.7" },
});
const op = input.userOp;
const big = (value) => (value === undefined ? undefined : BigInt(value));
const userOperation = {
  sender: op.sender,
  nonce: big(op.nonce),
  factory: op.factory,
  factoryData: op.factoryData,
  callData: op.callData,
  callGasLimit: big(op.callGasLimit),
  verificationGasLimit: big(op.verificationGasLimit),
  preVerificationGas: big(op.preVerificationGas),
  maxFeePerGas: big(op.maxFeePerGas),
  maxPriorityFeePerGas: big(op.maxPriorityFeePerGas),
  paymaster: op.paymaster,
  paymasterVerificationGasLimit: big(op.paymasterVerificationGasLimit),
  paymasterPostOpGasLimit: big(op.paymasterPostOpGasLimit),
  paymasterData: op.paymasterData,
  signature: "0x",
};
const userOpHash = getUserOperationHash({
  userOperation,
  entryPointAddress: input.entryPoint,
  entryPointVersion: "0.7",
  chainId: input.chainId,
});
const signature = await account.signUserOperation({ ...userOperation, chainId: input.chainId });
process.stdout.write(JSON.stringify({ address: await account.getAddress(), userOpHash, signature }));
