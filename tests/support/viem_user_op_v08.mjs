// viem's EntryPoint v0.8 userOpHash of operations the service built (an independent EIP-712 implementation), and
// its encoding of Simple7702Account's executeBatch.
// stdin {"ops": [{chainId, entryPoint, userOp (unpacked JSON-RPC form), delegate?}], "batch": [[to, value, data]]}
// stdout {"hashes": ["0x…"], "batch": "0x…"}
import { encodeFunctionData } from "viem";
import { getUserOperationHash } from "viem/account-abstraction";

const input = JSON.parse(await new Promise((resolve) => {
  let text = "";
  process.stdin.on("data", (chunk) => (text += chunk));
  process.stdin.on("end", () => resolve(text));
}));
const big = (value) => (value === undefined ? undefined : BigInt(value));
const hashes = input.ops.map(({ chainId, entryPoint, userOp: op, delegate }) =>
  getUserOperationHash({
    chainId,
    entryPointAddress: entryPoint,
    entryPointVersion: "0.8",
    userOperation: {
      ...op,
      nonce: big(op.nonce),
      callGasLimit: big(op.callGasLimit),
      verificationGasLimit: big(op.verificationGasLimit),
      preVerificationGas: big(op.preVerificationGas),
      maxFeePerGas: big(op.maxFeePerGas),
      maxPriorityFeePerGas: big(op.maxPriorityFeePerGas),
      paymasterVerificationGasLimit: big(op.paymasterVerificationGasLimit),
      paymasterPostOpGasLimit: big(op.paymasterPostOpGasLimit),
      ...(delegate ? { authorization: { address: delegate, chainId, nonce: 0, r: "0x0", s: "0x0", yParity: 0 } } : {}),
    },
  }),
);
const batchAbi = [{
  type: "function",
  name: "executeBatch",
  inputs: [{
    name: "calls",
    type: "tuple[]",
    components: [{ name: "target", type: "address" }, { name: "value", type: "uint256" }, { name: "data", type: "bytes" }],
  }],
  outputs: [],
  stateMutability: "nonpayable",
}];
const batch = encodeFunctionData({
  abi: batchAbi,
  functionName: "executeBatch",
  args: [input.batch.map(([target, value, data]) => ({ target, value: BigInt(value), data }))],
});
process.stdout.write(JSON.stringify({ hashes, batch }));
