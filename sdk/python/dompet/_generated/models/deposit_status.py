from enum import StrEnum


class DepositStatus(StrEnum):
    CREDITED = "credited"
    PENDING = "pending"
    REVERTED = "reverted"

    def __str__(self) -> str:
        return str(self.value)
