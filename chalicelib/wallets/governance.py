"""Which of the cosigner's signing policies governs a wallet's key: the apps' signed policies of its client
(chalicelib/policies registers the policy of this name with the cosigner; a wallet key names it at its generation)."""

from __future__ import annotations

WALLET_POLICY_NAME = "wallets"
