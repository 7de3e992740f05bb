"""Bitcoin, principal-free: the node's JSON-RPC (rpc.py), addresses and scripts (addresses.py), and transactions
built, hashed for signing and assembled (transactions.py). Scripts, sighashes and serialisation are embit's (a
maintained library; docs/custody.md says why), never hand-rolled. Imports no domain."""
