from enum import StrEnum


class SignatureViewKind(StrEnum):
    AUTHORIZATION = "authorization"
    PERSONAL_MESSAGE = "personal_message"
    TYPED_DATA = "typed_data"

    def __str__(self) -> str:
        return str(self.value)
