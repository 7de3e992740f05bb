from enum import StrEnum


class UserOperationStatus(StrEnum):
    CREATED = "created"
    FAILED = "failed"
    ON_PROCESS = "on_process"
    SUCCESS = "success"

    def __str__(self) -> str:
        return str(self.value)
