from enum import StrEnum


class GetCustodyDepositsStatusType0(StrEnum):
    CREDITED = "credited"
    PENDING = "pending"
    REVERTED = "reverted"

    def __str__(self) -> str:
        return str(self.value)
