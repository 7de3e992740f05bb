// Prints ethers v6's JSON of a transaction fetched from a node: `node devtools/ethers_tx_json.mjs <rpcUrl> <hash>`.
// Tests compare the service's txReceipt with it value by value.
import { JsonRpcProvider } from "ethers";

const [rpcUrl, hash] = process.argv.slice(2);
const provider = new JsonRpcProvider(rpcUrl, undefined, { staticNetwork: true });
const tx = await provider.getTransaction(hash);
process.stdout.write(JSON.stringify(tx === null ? null : tx.toJSON()));
provider.destroy();
