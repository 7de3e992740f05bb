"""Create every resource of chalicelib/platform/resources.py in the AWS endpoint at hand.

Used by the local stack (against its moto server) and by the tests (moto in
process). The CDK stack in infra/ builds the same resources on AWS. Key
attributes are strings.
"""

from __future__ import annotations

import functools
import json
from typing import Any

import boto3

from chalicelib.platform import resources as r


def create_resources(stage: str, region: str, bucket_suffix: str = "") -> None:
    session = _session(region)
    _tables(session.client("dynamodb"), stage)
    _queues(session.client("sqs"), stage)
    _keys(session.client("kms"), stage)
    _secrets(session.client("secretsmanager"), stage)
    _buckets(session.client("s3"), stage, region, bucket_suffix)


@functools.cache
def _session(region: str) -> Any:
    # One session per process: a new one re-reads botocore's service models (about 0.1 s per client).
    return boto3.session.Session(region_name=region)


def _tables(ddb: Any, stage: str) -> None:
    for table in r.TABLES:
        names = {table.partition_key, *(table.sort_key or "",)} - {""}
        schema = [{"AttributeName": table.partition_key, "KeyType": "HASH"}]
        if table.sort_key:
            schema.append({"AttributeName": table.sort_key, "KeyType": "RANGE"})
        indexes = []
        for index in table.indexes:
            index_schema = [{"AttributeName": index.partition_key, "KeyType": "HASH"}]
            names.add(index.partition_key)
            if index.sort_key:
                index_schema.append({"AttributeName": index.sort_key, "KeyType": "RANGE"})
                names.add(index.sort_key)
            indexes.append(
                {"IndexName": index.name, "KeySchema": index_schema, "Projection": {"ProjectionType": "ALL"}}
            )
        name = r.table_name(stage, table.name)
        ddb.create_table(
            TableName=name,
            KeySchema=schema,
            AttributeDefinitions=[{"AttributeName": n, "AttributeType": "S"} for n in sorted(names)],
            BillingMode="PAY_PER_REQUEST",
            **({"GlobalSecondaryIndexes": indexes} if indexes else {}),
        )
        if table.ttl_attribute:
            ddb.update_time_to_live(
                TableName=name, TimeToLiveSpecification={"Enabled": True, "AttributeName": table.ttl_attribute}
            )


def _queues(sqs: Any, stage: str) -> None:
    for queue in r.QUEUES:
        dlq_url = sqs.create_queue(
            QueueName=r.dlq_name(stage, queue.name),
            Attributes={"MessageRetentionPeriod": str(queue.dlq_retention_s)},
        )["QueueUrl"]
        dlq_arn = sqs.get_queue_attributes(QueueUrl=dlq_url, AttributeNames=["QueueArn"])["Attributes"]["QueueArn"]
        sqs.create_queue(
            QueueName=r.queue_name(stage, queue.name),
            Attributes={
                "VisibilityTimeout": str(queue.visibility_timeout_s),
                "MessageRetentionPeriod": str(queue.retention_s),
                "RedrivePolicy": json.dumps(
                    {"deadLetterTargetArn": dlq_arn, "maxReceiveCount": queue.max_receive_count}
                ),
            },
        )


def _keys(kms: Any, stage: str) -> None:
    for key in r.KEYS:
        key_id = kms.create_key(Description=key.purpose, KeySpec=key.spec, KeyUsage=key.usage)["KeyMetadata"]["KeyId"]
        kms.create_alias(AliasName=r.key_alias(stage, key.name), TargetKeyId=key_id)


def _secrets(sm: Any, stage: str) -> None:
    for secret in r.SECRETS:
        # The content is written by the function that owns the secret (e.g. rotate_signing_keys).
        sm.create_secret(Name=r.secret_name(stage, secret.name), Description=secret.purpose, SecretString="{}")


def _buckets(s3: Any, stage: str, region: str, suffix: str) -> None:
    for bucket in r.BUCKETS:
        name = r.bucket_name(stage, bucket.name, suffix)
        location = {} if region == "us-east-1" else {"CreateBucketConfiguration": {"LocationConstraint": region}}
        s3.create_bucket(Bucket=name, **location)
        s3.put_public_access_block(
            Bucket=name,
            PublicAccessBlockConfiguration={
                "BlockPublicAcls": True,
                "IgnorePublicAcls": True,
                "BlockPublicPolicy": True,
                "RestrictPublicBuckets": True,
            },
        )
        s3.put_bucket_lifecycle_configuration(
            Bucket=name,
            LifecycleConfiguration={
                "Rules": [
                    {
                        "ID": "expire",
                        "Status": "Enabled",
                        "Filter": {"Prefix": ""},
                        "Expiration": {"Days": bucket.expire_after_days},
                    }
                ]
            },
        )


def initialise() -> None:
    """First content of the resources that functions own (run after create_resources)."""
    from chalicelib.auth import jwt_keys as keys
    from chalicelib.webhooks import signing_keys as webhook_keys

    keys.rotate()
    webhook_keys.rotate()
