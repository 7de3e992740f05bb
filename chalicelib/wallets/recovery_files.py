"""The downloadable recovery file behind `secret0Link`.

An S3 object named `<address>.service` whose content is exactly `secret0`, under
a random prefix, served by a presigned GET URL that expires LINK_TTL_S after it
was made (the interface's 5 minutes). The bucket's lifecycle rule deletes the
objects after a day; the link is dead long before.
"""

from __future__ import annotations

import secrets

from chalicelib.platform import aws

LINK_TTL_S = 300
EXTENSION = ".service"


def publish(address: str, secret0: str) -> str:
    s3, bucket = aws.client("s3"), aws.bucket("recovery")
    filename = f"{address}{EXTENSION}"
    key = f"{secrets.token_urlsafe(24)}/{filename}"
    s3.put_object(
        Bucket=bucket,
        Key=key,
        Body=secret0.encode(),
        ContentType="application/octet-stream",
        ContentDisposition=f'attachment; filename="{filename}"',
        CacheControl="no-store",
    )
    url: str = s3.generate_presigned_url(
        "get_object", Params={"Bucket": bucket, "Key": key}, ExpiresIn=LINK_TTL_S, HttpMethod="GET"
    )
    return url
