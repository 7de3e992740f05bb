from enum import StrEnum


class CreateAccountRequestPooltype(StrEnum):
    DEDICATED = "dedicated"
    ORGANIZATION_OWNED = "organization_owned"

    def __str__(self) -> str:
        return str(self.value)
