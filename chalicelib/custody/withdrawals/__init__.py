"""Custody's withdrawals room: requests judged by the operator's policy, the worker that signs and sends them with
the pool's custody key, the cosigner's own check of each payment, and the operator's review. It uses custody's
shared modules (accounts, ledger, events, tokens, store, pool_keys) and never the deposits room
(devtools/import_graph.py ROOMS)."""
