from enum import StrEnum


class DepositMatchtype(StrEnum):
    INVOICE = "invoice"
    WALLET = "wallet"

    def __str__(self) -> str:
        return str(self.value)
