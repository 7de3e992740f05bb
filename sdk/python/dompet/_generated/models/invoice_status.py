from enum import StrEnum


class InvoiceStatus(StrEnum):
    EXPIRED = "expired"
    FAILED = "failed"
    PAID = "paid"
    PENDING = "pending"

    def __str__(self) -> str:
        return str(self.value)
