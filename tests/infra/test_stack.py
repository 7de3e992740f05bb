"""Synthesizes the CDK stack without AWS credentials and checks resources and grants.

The synth runs once per session in a child process (this file, run as a script):
`chalice package` imports app.py, which loads and caches settings, and copies
config.json's environment into `os.environ`; none of that should leak into the
test session. On a clean machine the first run downloads the Lambda wheels for
requirements.txt from PyPI; chalice caches them in `.chalice/deployments/`.

Expectations are derived from `resources.py`, so they follow the definitions.
"""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from collections.abc import Mapping
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import pytest
from aws_cdk.assertions import Match, Template

from chalicelib.platform import resources
from chalicelib.platform.resources import Grant
from infra.gateway_responses import NO_ROUTE

ROOT = Path(__file__).resolve().parents[2]
ACCOUNT, REGION = "123456789012", "eu-west-1"
SUFFIX = f"-{ACCOUNT}-{REGION}"

# An extra definition beside QUEUES proves any queue synthesizes, with grants.
EXTRA_QUEUE = resources.Queue(name="webhooks", purpose="Test only.", visibility_timeout_s=90, max_receive_count=3)


def _with_grant(functions: tuple[resources.Function, ...], name: str, grant: Grant) -> tuple[resources.Function, ...]:
    return tuple(dataclasses.replace(f, grants=(*f.grants, grant)) if f.name == name else f for f in functions)


SCENARIOS: dict[str, dict[str, Any]] = {
    "default": {"stage": "test"},
    "queues": {
        "stage": "testq",
        "queues": (*resources.QUEUES, EXTRA_QUEUE),
        "functions": _with_grant(
            _with_grant(resources.FUNCTIONS, "api_handler", Grant("queue", EXTRA_QUEUE.name, "write")),
            "rotate_signing_keys",
            Grant("queue", EXTRA_QUEUE.name, "read"),
        ),
    },
    # A function in app.py without a definition must fail the synth, not run with some other role.
    "undefined_function": {"stage": "testu", "functions": resources.FUNCTIONS[:-1]},
}

# (read side, write side) per resource kind; a key's read side is decrypt, its write side encrypt.
ACTIONS: dict[str, tuple[set[str], set[str]]] = {
    "table": (
        {"dynamodb:GetItem", "dynamodb:Query", "dynamodb:BatchGetItem", "dynamodb:Scan"},
        {"dynamodb:PutItem", "dynamodb:UpdateItem", "dynamodb:DeleteItem", "dynamodb:BatchWriteItem"},
    ),
    "queue": ({"sqs:ReceiveMessage", "sqs:DeleteMessage", "sqs:ChangeMessageVisibility"}, {"sqs:SendMessage"}),
    "bucket": ({"s3:GetObject"}, {"s3:PutObject", "s3:DeleteObject"}),
    "secret": (
        {"secretsmanager:GetSecretValue", "secretsmanager:DescribeSecret"},
        {"secretsmanager:PutSecretValue", "secretsmanager:UpdateSecretVersionStage"},
    ),
    "key": ({"kms:Decrypt"}, {"kms:Encrypt", "kms:GenerateDataKey"}),
}
SERVICE = {
    "table": "dynamodb",
    "queue": "sqs",
    "bucket": "s3",
    "secret": "secretsmanager",
    "key": "kms",
    "function": "lambda",
}
EXACT_KINDS = {"key", "secret"}  # no CDK helper involved: exactly the listed actions
READS = {"read", "read_write", "decrypt", "encrypt_decrypt"}
WRITES = {"write", "read_write", "encrypt", "encrypt_decrypt"}


# --- synth (child process) ------------------------------------------------------


def _synthesize(workdir: Path) -> dict[str, dict[str, Any]]:
    import aws_cdk as cdk

    from infra.stack import DompetStack

    context = json.loads((ROOT / "cdk.json").read_text())["context"]  # the feature flags `cdk deploy` uses
    results: dict[str, dict[str, Any]] = {}
    for name, kwargs in SCENARIOS.items():
        app = cdk.App(outdir=str(workdir / name), context=context)
        try:
            stack = DompetStack(app, env=cdk.Environment(account=ACCOUNT, region=REGION), **kwargs)
        except ValueError as exc:
            results[name] = {"error": str(exc)}
            continue
        results[name] = {"template": app.synth().get_stack_by_name(stack.stack_name).template}
    return results


@pytest.fixture(scope="session")
def synthesized(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, Any]]:
    workdir = tmp_path_factory.mktemp("cdk")
    nowhere = workdir / "no-aws-config"
    env = {k: v for k, v in os.environ.items() if not k.startswith("AWS_")}  # no credentials, no region
    env |= {
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
        "AWS_CONFIG_FILE": str(nowhere),
        "AWS_SHARED_CREDENTIALS_FILE": str(nowhere),
        "AWS_EC2_METADATA_DISABLED": "true",
    }
    run = subprocess.run(
        [sys.executable, __file__, str(workdir)], cwd=workdir, env=env, capture_output=True, text=True, timeout=900
    )
    if run.returncode != 0:
        pytest.fail(f"synth failed:\n{run.stdout[-2000:]}\n{run.stderr[-6000:]}")
    return json.loads((workdir / "templates.json").read_text())  # type: ignore[no-any-return]


def _template(synthesized: dict[str, dict[str, Any]], scenario: str) -> Template:
    assert "template" in synthesized[scenario], synthesized[scenario].get("error")
    return Template.from_json(synthesized[scenario]["template"])


@pytest.fixture(scope="session")
def template(synthesized: dict[str, dict[str, Any]]) -> Template:
    return _template(synthesized, "default")


# --- template helpers -----------------------------------------------------------


def _one(template: Template, resource_type: str, **properties: Any) -> tuple[str, Mapping[str, Any]]:
    found = template.find_resources(resource_type, {"Properties": properties})
    assert len(found) == 1, f"expected one {resource_type} with {properties}, found {sorted(found)}"
    return next(iter(found.items()))


def _refers_to(value: Any, logical_id: str) -> bool:
    if isinstance(value, dict):
        if value.get("Ref") == logical_id or value.get("Fn::GetAtt", [None])[0] == logical_id:
            return True
        return any(_refers_to(v, logical_id) for v in value.values())
    if isinstance(value, list):
        return any(_refers_to(v, logical_id) for v in value)
    return False


def _as_list(value: Any) -> list[Any]:
    return value if isinstance(value, list) else [value]


def _statements(template: Template, role_id: str) -> list[dict[str, Any]]:
    # CDK moves statements beyond the inline policy's size limit into managed "overflow" policies.
    policies = {
        **template.find_resources("AWS::IAM::Policy", {"Properties": {"Roles": Match.array_with([{"Ref": role_id}])}}),
        **template.find_resources(
            "AWS::IAM::ManagedPolicy", {"Properties": {"Roles": Match.array_with([{"Ref": role_id}])}}
        ),
    }
    return [s for policy in policies.values() for s in policy["Properties"]["PolicyDocument"]["Statement"]]


def _actions_on(template: Template, role_id: str, logical_id: str) -> set[str]:
    return {
        action
        for statement in _statements(template, role_id)
        if statement["Effect"] == "Allow" and _refers_to(statement["Resource"], logical_id)
        for action in _as_list(statement["Action"])
    }


def _allows(actions: set[str], wanted: str) -> bool:
    return any(fnmatchcase(wanted, granted) for granted in actions)


def _resource_id(template: Template, stage: str, kind: str, name: str) -> str:
    if kind == "table":
        return _one(template, "AWS::DynamoDB::Table", TableName=resources.table_name(stage, name))[0]
    if kind == "queue":
        return _one(template, "AWS::SQS::Queue", QueueName=resources.queue_name(stage, name))[0]
    if kind == "secret":
        return _one(template, "AWS::SecretsManager::Secret", Name=resources.secret_name(stage, name))[0]
    if kind == "bucket":
        return _one(template, "AWS::S3::Bucket", BucketName=resources.bucket_name(stage, name, SUFFIX))[0]
    alias = _one(template, "AWS::KMS::Alias", AliasName=resources.key_alias(stage, name))[1]
    return str(alias["Properties"]["TargetKeyId"]["Fn::GetAtt"][0])


def _role_id(template: Template, function_name: str) -> str:
    from infra.stack import sam_logical_id

    role = template.to_json()["Resources"][sam_logical_id(function_name)]["Properties"]["Role"]
    assert set(role) == {"Fn::GetAtt"}, f"{function_name} does not use a role from this stack: {role}"
    return str(role["Fn::GetAtt"][0])


# --- resources ------------------------------------------------------------------


@pytest.mark.parametrize("table", resources.TABLES, ids=lambda t: t.name)
def test_table(template: Template, table: resources.Table) -> None:
    key_schema = [{"AttributeName": table.partition_key, "KeyType": "HASH"}]
    if table.sort_key:
        key_schema.append({"AttributeName": table.sort_key, "KeyType": "RANGE"})
    indexes = [
        Match.object_like(
            {
                "IndexName": i.name,
                "KeySchema": Match.array_with([{"AttributeName": i.partition_key, "KeyType": "HASH"}]),
            }
        )
        for i in table.indexes
    ]
    template.has_resource(
        "AWS::DynamoDB::Table",
        {
            "Properties": {
                "TableName": resources.table_name("test", table.name),
                "KeySchema": key_schema,
                "BillingMode": "PAY_PER_REQUEST",
                "PointInTimeRecoverySpecification": {"PointInTimeRecoveryEnabled": True},
                "TimeToLiveSpecification": (
                    {"AttributeName": table.ttl_attribute, "Enabled": True} if table.ttl_attribute else Match.absent()
                ),
                "GlobalSecondaryIndexes": indexes or Match.absent(),
            },
            "DeletionPolicy": "Retain",
            "UpdateReplacePolicy": "Retain",
        },
    )


@pytest.mark.parametrize("key", resources.KEYS, ids=lambda k: k.name)
def test_key_and_alias(template: Template, key: resources.Key) -> None:
    # KMS rotates symmetric keys only (the paymaster's secp256k1 signing key cannot be rotated in place).
    rotation = {"EnableKeyRotation": True} if key.spec == "SYMMETRIC_DEFAULT" else {}
    key_id, resource = _one(
        template, "AWS::KMS::Key", Description=key.purpose, KeySpec=key.spec, KeyUsage=key.usage, **rotation
    )
    assert rotation or not resource["Properties"].get("EnableKeyRotation")
    template.has_resource_properties(
        "AWS::KMS::Alias",
        {"AliasName": resources.key_alias("test", key.name), "TargetKeyId": {"Fn::GetAtt": [key_id, "Arn"]}},
    )


@pytest.mark.parametrize("secret", resources.SECRETS, ids=lambda s: s.name)
def test_secret(template: Template, secret: resources.Secret) -> None:
    template.has_resource_properties(
        "AWS::SecretsManager::Secret", {"Name": resources.secret_name("test", secret.name)}
    )


@pytest.mark.parametrize("bucket", resources.BUCKETS, ids=lambda b: b.name)
def test_bucket(template: Template, bucket: resources.Bucket) -> None:
    bucket_id, _ = _one(
        template,
        "AWS::S3::Bucket",
        BucketName=resources.bucket_name("test", bucket.name, SUFFIX),
        LifecycleConfiguration={"Rules": [{"ExpirationInDays": bucket.expire_after_days, "Status": "Enabled"}]},
        PublicAccessBlockConfiguration=dict.fromkeys(
            ("BlockPublicAcls", "BlockPublicPolicy", "IgnorePublicAcls", "RestrictPublicBuckets"), True
        ),
        BucketEncryption={
            "ServerSideEncryptionConfiguration": [{"ServerSideEncryptionByDefault": {"SSEAlgorithm": "AES256"}}]
        },
    )
    template.has_resource_properties(
        "AWS::S3::BucketPolicy",
        {
            "Bucket": {"Ref": bucket_id},
            "PolicyDocument": {
                "Statement": Match.array_with(
                    [Match.object_like({"Effect": "Deny", "Condition": {"Bool": {"aws:SecureTransport": "false"}}})]
                )
            },
        },
    )


@pytest.mark.parametrize("queue", SCENARIOS["queues"]["queues"], ids=lambda q: q.name)
def test_queue_with_dead_letter_queue(synthesized: dict[str, dict[str, Any]], queue: resources.Queue) -> None:
    template = _template(synthesized, "queues")
    dlq_id, _ = _one(
        template,
        "AWS::SQS::Queue",
        QueueName=resources.dlq_name("testq", queue.name),
        MessageRetentionPeriod=queue.dlq_retention_s,
    )
    template.has_resource_properties(
        "AWS::SQS::Queue",
        {
            "QueueName": resources.queue_name("testq", queue.name),
            "VisibilityTimeout": queue.visibility_timeout_s,
            "MessageRetentionPeriod": queue.retention_s,
            "RedrivePolicy": {
                "deadLetterTargetArn": {"Fn::GetAtt": [dlq_id, "Arn"]},
                "maxReceiveCount": queue.max_receive_count,
            },
        },
    )


# --- functions, roles and grants ------------------------------------------------


def test_functions_are_exactly_the_defined_ones(template: Template) -> None:
    from infra.stack import sam_logical_id

    template.resource_count_is("AWS::Serverless::Function", len(resources.FUNCTIONS))
    for function in resources.FUNCTIONS:
        assert sam_logical_id(function.name) in template.find_resources("AWS::Serverless::Function")
    template.all_resources_properties(
        "AWS::Serverless::Function",
        {
            "Environment": {
                "Variables": {"DOMPET_STAGE": "test", "DOMPET_BUCKET_SUFFIX": SUFFIX, "DOMPET_LOG_LEVEL": "INFO"}
            },
            "Role": {"Fn::GetAtt": [Match.any_value(), "Arn"]},
            "Policies": Match.absent(),  # Chalice generated no policy
        },
    )


def test_every_function_runs_from_app_py_which_wires_the_hooks(template: Template) -> None:
    """Lambda imports the module its handler names: app.py, whose placeholders wire the hooks before the first
    event (a worker module named directly would run with none, and the cosigner would refuse every governed key)."""
    from infra.stack import sam_logical_id

    functions = template.find_resources("AWS::Serverless::Function")
    for function in resources.FUNCTIONS:
        handler = functions[sam_logical_id(function.name)]["Properties"]["Handler"]
        assert handler == ("app.app" if function.name == "api_handler" else f"app.{function.name}"), function.name


def test_undefined_function_fails_the_synth(synthesized: dict[str, dict[str, Any]]) -> None:
    from infra.stack import sam_logical_id

    error = synthesized["undefined_function"].get("error", "")
    assert "no entry in resources.FUNCTIONS" in error and sam_logical_id(resources.FUNCTIONS[-1].name) in error


def test_each_function_has_its_own_role_with_only_basic_execution(template: Template) -> None:
    role_ids = [_role_id(template, f.name) for f in resources.FUNCTIONS]
    assert len(set(role_ids)) == len(role_ids)
    roles = template.find_resources("AWS::IAM::Role")
    for role_id in role_ids:
        props = roles[role_id]["Properties"]
        assert props["AssumeRolePolicyDocument"]["Statement"] == [
            {"Action": "sts:AssumeRole", "Effect": "Allow", "Principal": {"Service": "lambda.amazonaws.com"}}
        ]
        (managed,) = props["ManagedPolicyArns"]
        assert json.dumps(managed).endswith(':iam::aws:policy/service-role/AWSLambdaBasicExecutionRole"]]}')
        assert "Policies" not in props


@pytest.mark.parametrize("scenario", ["default", "queues"])
def test_grants_are_exactly_the_defined_ones(synthesized: dict[str, dict[str, Any]], scenario: str) -> None:
    template = _template(synthesized, scenario)
    stage = SCENARIOS[scenario]["stage"]
    definitions = {
        "table": resources.TABLES,
        "queue": SCENARIOS[scenario].get("queues", resources.QUEUES),
        "key": resources.KEYS,
        "secret": resources.SECRETS,
        "bucket": resources.BUCKETS,
    }
    for function in SCENARIOS[scenario].get("functions", resources.FUNCTIONS):
        role_id = _role_id(template, function.name)
        granted = {(g.kind, g.name): g.access for g in function.grants}
        services = {SERVICE[g.kind] for g in function.grants}
        for statement in _statements(template, role_id):
            for action in _as_list(statement["Action"]):
                assert action.split(":")[0] in services, f"{function.name} may {action} without a grant"
        for kind, items in definitions.items():
            for item in items:
                actions = _actions_on(template, role_id, _resource_id(template, stage, kind, item.name))
                where = f"{function.name} on {kind} {item.name}"
                access = granted.get((kind, item.name))
                if access is None:
                    assert actions == set(), f"{where}: no grant, yet {actions}"
                    continue
                read, write = ACTIONS[kind]
                required = (read if access in READS else set()) | (write if access in WRITES else set())
                if access == "sign":  # an asymmetric signing key: sign, and read its public key; nothing else
                    required = {"kms:Sign", "kms:GetPublicKey"}
                forbidden = (read | write) - required
                assert all(_allows(actions, a) for a in required), f"{where} ({access}): missing {required - actions}"
                assert not any(_allows(actions, a) for a in forbidden), f"{where} ({access}): has {actions}"
                assert all(a.startswith(SERVICE[kind] + ":") for a in actions), f"{where}: {actions}"
                if kind in EXACT_KINDS:
                    assert actions == required, where


def test_every_consumer_may_read_its_queue() -> None:
    """Lambda's event source mapping receives and deletes a consumer's messages with the consumer's own role."""
    for function in resources.FUNCTIONS:
        for queue in function.consumes:
            access = {g.access for g in function.grants if g.kind == "queue" and g.name == queue}
            assert access & set(READS), f"{function.name} consumes {queue} without a read grant"


def test_queue_consumers_read_the_stacks_queue(template: Template) -> None:
    from chalice.app import SQSEventConfig

    from app import app
    from infra.stack import sam_logical_id

    batch_sizes = {s.name: s.batch_size for s in app.event_sources if isinstance(s, SQSEventConfig)}
    functions = template.find_resources("AWS::Serverless::Function")
    for function in resources.FUNCTIONS:
        events = functions[sam_logical_id(function.name)]["Properties"].get("Events", {})
        sqs = [e for e in events.values() if e["Type"] == "SQS"]
        assert len(sqs) == len(function.consumes), function.name
        for event, queue in zip(sqs, function.consumes, strict=True):
            arn = event["Properties"]["Queue"]
            assert arn == {"Fn::GetAtt": [_resource_id(template, "test", "queue", queue), "Arn"]}, function.name
            assert event["Properties"]["FunctionResponseTypes"] == ["ReportBatchItemFailures"], function.name
            assert event["Properties"]["BatchSize"] == batch_sizes[function.name], function.name
            # Background consumers run at most their bound at once (resources.py), the others as SQS scales them.
            scaling = event["Properties"].get("ScalingConfig", {}).get("MaximumConcurrency")
            assert scaling == function.background_concurrency, function.name
    # Trackers and deliveries take ten messages at a time; a presignature refill or a custody withdrawal (seconds of
    # proofs each) takes one.
    assert {name: size for name, size in batch_sizes.items() if size != 10} == {
        "refill_presignatures": 1,
        "send_withdrawals": 1,
    }


def test_function_names_limits_and_invoke_grants(template: Template) -> None:
    from infra.stack import sam_logical_id

    functions = template.find_resources("AWS::Serverless::Function")
    for function in resources.FUNCTIONS:
        props = functions[sam_logical_id(function.name)]["Properties"]
        assert props["FunctionName"] == resources.function_name("test", function.name)
        assert (props["Timeout"], props["MemorySize"]) == (function.timeout_s, function.memory_mb)
        invokes = {
            arn.rsplit(":function:", 1)[-1]
            for statement in _statements(template, _role_id(template, function.name))
            if "lambda:InvokeFunction" in _as_list(statement["Action"])
            for arn in _as_list(statement["Resource"])
        }
        expected = {resources.function_name("test", g.name) for g in function.grants if g.kind == "function"}
        assert invokes == expected, function.name
    # Only the API (and the presignature refill, the custody withdrawal worker and the transaction engine's tracker,
    # party A like the API) reach the parties; the parties reach nobody. The withdrawal worker and the tracker reach
    # only the cosigner, whose policy checks them (a re-pricing or a gap fill is what it allows as such).
    assert {g.name for g in resources.function("api_handler").grants if g.kind == "function"} == {
        "cosigner",
        "user_party",
    }
    callers = {f.name for f in resources.FUNCTIONS if any(g.kind == "function" for g in f.grants)}
    assert callers == {"api_handler", "refill_presignatures", "send_withdrawals", "track_transaction"}
    for caller in ("refill_presignatures", "send_withdrawals", "track_transaction"):
        assert {g.name for g in resources.function(caller).grants if g.kind == "function"} == {"cosigner"}


def test_no_function_reaches_both_parties_presignatures_or_shares(template: Template) -> None:
    """Party A's shares and presignature shares, and party B's, are never readable by one function (together
    they are the key); each side's table is readable only by a function that holds its own KMS key."""
    sides = {
        "a": ({"signer-shares", "signer-presignatures"}, "share-a"),
        "b": ({"cosigner-shares", "cosigner-presignatures"}, "share-b"),
    }
    for function in resources.FUNCTIONS:
        role_id = _role_id(template, function.name)
        reached = set()
        for side, (tables, key) in sides.items():
            readable = {
                t
                for t in tables
                if _allows(
                    _actions_on(template, role_id, _resource_id(template, "test", "table", t)), "dynamodb:GetItem"
                )
                or _allows(_actions_on(template, role_id, _resource_id(template, "test", "table", t)), "dynamodb:Query")
            }
            if readable:
                reached.add(side)
                assert _allows(
                    _actions_on(template, role_id, _resource_id(template, "test", "key", key)), "kms:Decrypt"
                )
        assert len(reached) <= 1, f"{function.name} reads both parties' tables"


def test_no_function_holds_two_share_keys(template: Template) -> None:
    share_keys = {"share-a", "share-b", "recovery"}
    for function in resources.FUNCTIONS:
        role_id = _role_id(template, function.name)
        readable = {
            name
            for name in share_keys
            if _allows(_actions_on(template, role_id, _resource_id(template, "test", "key", name)), "kms:Decrypt")
        }
        assert len(readable) <= 1, f"{function.name} can open {readable}"


def test_api_handler_and_rotator_examples(template: Template) -> None:
    api = _role_id(template, "api_handler")
    tenancy = _resource_id(template, "test", "table", "tenancy")
    app_secrets = _resource_id(template, "test", "key", "app-secrets")
    # The console (in the API function) makes apps and rotates their secrets: tenancy and app-secrets are its.
    assert _allows(_actions_on(template, api, tenancy), "dynamodb:PutItem")
    assert _allows(_actions_on(template, api, app_secrets), "kms:Encrypt")
    # What the cosigner decides from stays out of its reach: the operator's custody policy, the cosigner's table.
    for name in ("custody-policy", "cosigner-policy"):
        actions = _actions_on(template, api, _resource_id(template, "test", "table", name))
        assert not any(_allows(actions, a) for a in ("dynamodb:PutItem", "dynamodb:UpdateItem")), name

    rotator = _role_id(template, "rotate_signing_keys")
    actions = {a for s in _statements(template, rotator) for a in _as_list(s["Action"])}
    assert not any(a.startswith("dynamodb:") or a == "*" for a in actions)


# --- API Gateway and the signing-key trigger --------------------------------------


def test_gateway_errors_answer_in_the_envelope(template: Template) -> None:
    (api,) = template.find_resources("AWS::Serverless::Api").values()
    responses = api["Properties"]["DefinitionBody"]["x-amazon-apigateway-gateway-responses"]
    assert {"DEFAULT_4XX", "DEFAULT_5XX", "MISSING_AUTHENTICATION_TOKEN"} <= set(responses)
    # The /docs bundle (gzip, base64 from Lambda) reaches a browser's `Accept: */*` as bytes.
    assert "*/*" in api["Properties"]["DefinitionBody"]["x-amazon-apigateway-binary-media-types"]
    bodies = {name: json.loads(r["responseTemplates"]["application/json"]) for name, r in responses.items()}
    for response_type, body in bodies.items():
        assert set(body) == {"status", "message", "data"} and set(body["data"]) == {"code"}, response_type
        if "statusCode" in responses[response_type]:
            assert int(responses[response_type]["statusCode"]) == body["status"], response_type
        else:  # only the fallbacks keep each type's own status
            assert response_type.startswith("DEFAULT_"), response_type
    assert responses["MISSING_AUTHENTICATION_TOKEN"]["statusCode"] == "404"  # unknown route
    assert bodies["MISSING_AUTHENTICATION_TOKEN"] == {
        "status": 404,
        "message": "Not found",
        "data": {"code": "NOT_FOUND"},
    }
    # The local stack's stand-in for API Gateway answers an unknown path with this same body (devtools/local_api.py).
    assert responses["MISSING_AUTHENTICATION_TOKEN"]["responseTemplates"]["application/json"] == NO_ROUTE.body()
    assert bodies["DEFAULT_4XX"]["data"]["code"] == "BAD_REQUEST"
    assert bodies["DEFAULT_5XX"]["data"]["code"] == "GATEWAY_ERROR"


def test_a_method_a_path_does_not_declare_reaches_the_service(template: Template) -> None:
    """API Gateway would answer it MISSING_AUTHENTICATION_TOKEN (404); the service answers 405 with `Allow`."""
    (api,) = template.find_resources("AWS::Serverless::Api").values()
    paths = api["Properties"]["DefinitionBody"]["paths"]
    assert len(paths) > 40 and "/api/v1/userOp/submit" in paths
    for path, methods in paths.items():
        declared = {m for m in methods if m != "x-amazon-apigateway-any-method"}
        assert declared and "x-amazon-apigateway-any-method" in methods, path
        for method in (*declared, "x-amazon-apigateway-any-method"):
            integration = methods[method]["x-amazon-apigateway-integration"]
            assert integration["type"] == "aws_proxy" and integration["httpMethod"] == "POST", (path, method)
            assert "APIHandler.Arn" in integration["uri"]["Fn::Sub"], (path, method)


@pytest.mark.parametrize("rotator", ["rotate_signing_keys", "rotate_webhook_keys"])
def test_signing_keys_are_initialised_before_the_api_exists(template: Template, rotator: str) -> None:
    from infra.stack import sam_logical_id

    rotator_arn = {"Fn::GetAtt": [sam_logical_id(rotator), "Arn"]}
    invoker_id, invoker = _one(
        template, "AWS::Lambda::Function", Environment={"Variables": {"TARGET_FUNCTION": rotator_arn}}
    )
    triggers = template.find_resources("Custom::Trigger")
    (trigger_id,) = [k for k, v in triggers.items() if sam_logical_id(rotator) in v.get("DependsOn", [])]
    assert invoker_id[:-8] in str(triggers[trigger_id])  # the trigger runs (a version of) this rotator's invoker
    template.has_resource("AWS::Serverless::Api", {"DependsOn": Match.array_with([trigger_id])})
    invoker_role = invoker["Properties"]["Role"]["Fn::GetAtt"][0]
    assert _statements(template, invoker_role) == [
        {"Action": "lambda:InvokeFunction", "Effect": "Allow", "Resource": rotator_arn}
    ]


def test_every_recorded_aws_call_is_granted(template: Template) -> None:
    """Runs last (tests/iam_recorder.py): every AWS call a function made during the session is allowed by that
    function's role in the synthesized stack, on that resource. moto enforces no IAM; this test does."""
    from infra.stack import sam_logical_id
    from tests.iam_recorder import RECORDED

    if not RECORDED:
        pytest.skip("no function made an AWS call in this run")
    missing = []
    # The app's functions are exactly resources.FUNCTIONS (an undefined one fails the synth); other names are the
    # handlers of small apps that tests build for the local worker runner, with no role to check.
    defined = {f.name for f in resources.FUNCTIONS}
    for call in sorted(RECORDED, key=lambda c: (c.function, c.action, c.name)):
        if call.function not in defined:
            continue
        role = _role_id(template, call.function)
        if call.kind == "":  # the call names no resource (e.g. KMS Decrypt finds its key in the ciphertext)
            granted = {a for s in _statements(template, role) if s["Effect"] == "Allow" for a in _as_list(s["Action"])}
        elif call.kind == "function":
            granted = _actions_on(template, role, sam_logical_id(call.name))
        else:
            granted = _actions_on(template, role, _resource_id(template, "test", call.kind, call.name))
        if not _allows(granted, call.action):
            missing.append(f"{call.function}: {call.action} on {call.kind} {call.name}")
    assert not missing, "calls the role does not grant:\n" + "\n".join(missing)


if __name__ == "__main__":
    out = Path(sys.argv[1])
    (out / "templates.json").write_text(json.dumps(_synthesize(out)))
