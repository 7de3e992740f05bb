from enum import StrEnum


class SignMessageRequestEncoding(StrEnum):
    HEX = "hex"
    UTF8 = "utf8"

    def __str__(self) -> str:
        return str(self.value)
