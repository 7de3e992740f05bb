from enum import StrEnum


class SessionInfoTokentype(StrEnum):
    ACCESS = "access"
    WALLET = "wallet"

    def __str__(self) -> str:
        return str(self.value)
