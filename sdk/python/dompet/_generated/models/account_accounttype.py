from enum import StrEnum


class AccountAccounttype(StrEnum):
    EIP7702 = "eip7702"
    SIMPLE = "simple"

    def __str__(self) -> str:
        return str(self.value)
