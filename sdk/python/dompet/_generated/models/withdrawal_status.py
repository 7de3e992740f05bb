from enum import StrEnum


class WithdrawalStatus(StrEnum):
    FAILED = "failed"
    PENDING = "pending"
    SENDING = "sending"
    SENT = "sent"
    SUCCESS = "success"

    def __str__(self) -> str:
        return str(self.value)
