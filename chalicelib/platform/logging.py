"""One structured logger for the service (AWS Lambda Powertools).

Log calls pass identifiers and error types only; never secrets, tokens, shares,
request bodies or tracebacks.
"""

from __future__ import annotations

from aws_lambda_powertools import Logger

# The level is applied from the validated settings at start-up (see configure()), so a bad
# DOMPET_LOG_LEVEL is reported like every other bad setting.
logger = Logger(service="dompet", level="INFO")


def configure(level: str) -> None:
    logger.setLevel(level)


def stack_of(exc: BaseException, limit: int = 30) -> list[str]:
    """Where an exception came from (file:line in function, innermost last), without its message or any
    value: messages of library errors can carry secrets, the frames cannot."""
    import traceback

    frames = traceback.extract_tb(exc.__traceback__)[-limit:]
    return [f"{frame.filename.rsplit('/site-packages/', 1)[-1]}:{frame.lineno} in {frame.name}" for frame in frames]


def log_failure(message: str, exc: BaseException, **extra: object) -> None:
    """Log an unexpected failure server-side with its type and stack (never its message)."""
    logger.error(message, extra={"errorType": type(exc).__name__, "stack": stack_of(exc), **extra})
