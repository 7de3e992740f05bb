from enum import StrEnum


class UserOperationPayerType0(StrEnum):
    NONE = "none"
    ORGANIZATION = "organization"
    OWNER = "owner"

    def __str__(self) -> str:
        return str(self.value)
