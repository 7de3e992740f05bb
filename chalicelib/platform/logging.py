"""One structured logger for the service (AWS Lambda Powertools).

Log calls pass identifiers and error types only; never secrets, tokens, shares,
request bodies or tracebacks.
"""

from __future__ import annotations

import os

from aws_lambda_powertools import Logger

logger = Logger(service="dompet", level=os.environ.get("DOMPET_LOG_LEVEL", "INFO"))
