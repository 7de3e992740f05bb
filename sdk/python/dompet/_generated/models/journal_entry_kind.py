from enum import StrEnum


class JournalEntryKind(StrEnum):
    CORRECTION = "correction"
    CREDIT = "credit"
    DEBIT = "debit"
    HOLD = "hold"
    PENDING = "pending"
    PENDING_VOID = "pending_void"
    RELEASE = "release"

    def __str__(self) -> str:
        return str(self.value)
