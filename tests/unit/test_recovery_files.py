"""The recovery link's own parameters: moto serves presigned URLs without checking their expiry or
signature, so the local stack cannot show the link dying; these assert what AWS will enforce."""

from __future__ import annotations

from datetime import UTC, datetime
from urllib.parse import parse_qs, urlsplit

from chalicelib.platform import aws
from chalicelib.wallets import recovery_files


def test_the_link_is_a_sigv4_presigned_get_that_expires_after_five_minutes(aws_env):
    address = "0x" + "ab" * 20
    url = recovery_files.publish(address, "secret-zero")
    parts = urlsplit(url)
    query = {k: v[0] for k, v in parse_qs(parts.query).items()}
    assert parts.path.endswith(f"/{address}.service")
    assert query["X-Amz-Algorithm"] == "AWS4-HMAC-SHA256"
    assert query["X-Amz-Expires"] == str(recovery_files.LINK_TTL_S) == "300"  # the interface's 5 minutes
    assert len(query["X-Amz-Signature"]) == 64 and int(query["X-Amz-Signature"], 16) >= 0
    assert query["X-Amz-SignedHeaders"] == "host"
    signed_at = datetime.strptime(query["X-Amz-Date"], "%Y%m%dT%H%M%SZ").replace(tzinfo=UTC)
    assert abs((datetime.now(UTC) - signed_at).total_seconds()) < 60  # valid from now, not from some other time
    key = parts.path.split(f"/{aws.bucket('recovery')}/", 1)[-1] if aws.bucket("recovery") in parts.path else None
    body = aws.client("s3").get_object(Bucket=aws.bucket("recovery"), Key=key or parts.path.lstrip("/"))["Body"]
    assert body.read() == b"secret-zero"
