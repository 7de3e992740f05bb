from enum import StrEnum


class GetCustodyInvoicesStatusType0(StrEnum):
    EXPIRED = "expired"
    FAILED = "failed"
    PAID = "paid"
    PENDING = "pending"

    def __str__(self) -> str:
        return str(self.value)
