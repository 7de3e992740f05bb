from enum import StrEnum


class LegacyReplacementReason(StrEnum):
    BUMP = "bump"
    CANCEL = "cancel"
    SPEED_UP = "speed_up"

    def __str__(self) -> str:
        return str(self.value)
