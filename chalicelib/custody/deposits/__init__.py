"""Custody's deposits room: invoices, the watcher that scans the chain for transfers to deposit addresses, and each
deposit's moves from first sight to credit (or revert). It uses custody's shared modules (accounts, ledger, events,
tokens, store) and never the withdrawals room (devtools/import_graph.py ROOMS)."""
