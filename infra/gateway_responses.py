"""What API Gateway answers by itself, before a request reaches the service: every gateway response type mapped
to the envelope `{status, message, data: {code}}` (docs/errors.md).

The CDK stack installs these as the API's gateway responses, and the local stack's stand-in for API Gateway
(devtools/local_api.py) answers an unknown path with the same body. No CDK import here, so both can read it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass


@dataclass(frozen=True)
class GatewayError:
    status: int
    code: str
    message: str

    def body(self) -> str:
        """The envelope as the response template (API Gateway does not run VTL on it: the status is fixed)."""
        envelope = {"status": self.status, "message": self.message, "data": {"code": self.code}}
        return json.dumps(envelope, separators=(",", ":"))


# Every API Gateway response type with its standard status, so errors raised before
# the request reaches Lambda still answer in the envelope. Templates are not VTL:
# the status cannot be looked up at run time, hence one entry per type. Without
# IAM auth or API keys, MISSING_AUTHENTICATION_TOKEN means "no such route" (a
# method a path does not declare reaches the service instead, see infra/stack.py).
GATEWAY_ERRORS: dict[str, GatewayError] = {
    "MISSING_AUTHENTICATION_TOKEN": GatewayError(404, "NOT_FOUND", "Not found"),
    "RESOURCE_NOT_FOUND": GatewayError(404, "NOT_FOUND", "Not found"),
    "BAD_REQUEST_PARAMETERS": GatewayError(400, "BAD_REQUEST", "Bad request"),
    "BAD_REQUEST_BODY": GatewayError(400, "BAD_REQUEST", "Bad request"),
    "UNAUTHORIZED": GatewayError(401, "UNAUTHORIZED", "Unauthorized"),
    "ACCESS_DENIED": GatewayError(403, "FORBIDDEN", "Forbidden"),
    "EXPIRED_TOKEN": GatewayError(403, "FORBIDDEN", "Forbidden"),
    "INVALID_API_KEY": GatewayError(403, "FORBIDDEN", "Forbidden"),
    "INVALID_SIGNATURE": GatewayError(403, "FORBIDDEN", "Forbidden"),
    "WAF_FILTERED": GatewayError(403, "FORBIDDEN", "Forbidden"),
    "REQUEST_TOO_LARGE": GatewayError(413, "REQUEST_TOO_LARGE", "Request too large"),
    "UNSUPPORTED_MEDIA_TYPE": GatewayError(415, "UNSUPPORTED_MEDIA_TYPE", "Unsupported media type"),
    "THROTTLED": GatewayError(429, "TOO_MANY_REQUESTS", "Too many requests"),
    "QUOTA_EXCEEDED": GatewayError(429, "TOO_MANY_REQUESTS", "Too many requests"),
    "API_CONFIGURATION_ERROR": GatewayError(500, "GATEWAY_ERROR", "Gateway error"),
    "AUTHORIZER_CONFIGURATION_ERROR": GatewayError(500, "GATEWAY_ERROR", "Gateway error"),
    "AUTHORIZER_FAILURE": GatewayError(500, "GATEWAY_ERROR", "Gateway error"),
    "INTEGRATION_FAILURE": GatewayError(504, "GATEWAY_ERROR", "Gateway error"),
    "INTEGRATION_TIMEOUT": GatewayError(504, "GATEWAY_ERROR", "Gateway timeout"),
    # Fallbacks for types AWS may add. Their status is not overridden because that
    # would also change the status of every 4XX/5XX type not listed above.
    "DEFAULT_4XX": GatewayError(400, "BAD_REQUEST", "Bad request"),
    "DEFAULT_5XX": GatewayError(500, "GATEWAY_ERROR", "Gateway error"),
}

# An unknown path: API Gateway's MISSING_AUTHENTICATION_TOKEN, and chalice local's imitation of it.
NO_ROUTE = GATEWAY_ERRORS["MISSING_AUTHENTICATION_TOKEN"]
