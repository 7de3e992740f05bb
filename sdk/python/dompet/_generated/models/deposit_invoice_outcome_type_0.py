from enum import StrEnum


class DepositInvoiceOutcomeType0(StrEnum):
    FAILED = "failed"
    PAID = "paid"

    def __str__(self) -> str:
        return str(self.value)
