"""The custodial deposit product: accounts with deposit addresses, invoices, deposits, the ledger (docs/custody.md)."""
