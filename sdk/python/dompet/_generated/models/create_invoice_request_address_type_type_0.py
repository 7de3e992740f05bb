from enum import StrEnum


class CreateInvoiceRequestAddressTypeType0(StrEnum):
    LEGACY = "legacy"
    NATIVE_SEGWIT = "native-segwit"

    def __str__(self) -> str:
        return str(self.value)
