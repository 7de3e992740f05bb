from enum import StrEnum


class Eip1559ReplacementReason(StrEnum):
    BUMP = "bump"
    CANCEL = "cancel"
    SPEED_UP = "speed_up"

    def __str__(self) -> str:
        return str(self.value)
