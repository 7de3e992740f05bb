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
