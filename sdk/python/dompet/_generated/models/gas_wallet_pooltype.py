from enum import StrEnum


class GasWalletPooltype(StrEnum):
    DEDICATED = "dedicated"
    ORGANIZATION_OWNED = "organization_owned"

    def __str__(self) -> str:
        return str(self.value)
