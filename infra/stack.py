"""The Dompet stack: every resource in `chalicelib/platform/resources.py`, the Chalice
app, and one least-privilege IAM role per Lambda function.

Deliberate choices (each one is the answer to something that bit or would bite):

* The construct id of the stack is the stage. `chalice.cdk.Chalice` takes its
  Chalice stage name from `scope.to_string()`, the construct path of the stack, so
  this is what makes `.chalice/config.json`'s `stages.<stage>` apply.
* Roles are set on the packaged functions afterwards, not through Chalice config.
  The construct passes `stage_config` to `chalice package` as *top-level*
  overrides, and Chalice never reads per-function `lambda_functions` from them
  (only from config.json). So Chalice is told `manage_iam_role: false` with a
  stand-in role ARN, and every function's `Role` is overridden here; a function
  in app.py without an entry in `resources.FUNCTIONS` fails the synth.
* Environment variables are set the same way, not through Chalice config:
  `chalice package` copies its environment variables into `os.environ` and
  imports app.py, whose `load_settings()` would reject unresolved CDK tokens.
* Gateway responses live in the API definition (`x-amazon-apigateway-gateway-
  responses`), not as separate resources, so a change is part of the definition
  SAM hashes and is redeployed to the stage.
* Every path also has an ANY method to the API function, so that a method the path
  does not declare is the service's 405 with `Allow`, not API Gateway's "Missing
  Authentication Token" (which the gateway responses turn into 404 for unknown paths).
"""

from __future__ import annotations

import os
import re
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, get_args

from aws_cdk import ArnFormat, CfnResource, Duration, RemovalPolicy, Stack, Token, triggers
from aws_cdk import aws_dynamodb as dynamodb
from aws_cdk import aws_iam as iam
from aws_cdk import aws_kms as kms
from aws_cdk import aws_lambda as lambda_
from aws_cdk import aws_s3 as s3
from aws_cdk import aws_sam as sam
from aws_cdk import aws_secretsmanager as secretsmanager
from aws_cdk import aws_sqs as sqs
from chalice.cdk import Chalice
from chalice.utils import to_cfn_resource_name
from constructs import Construct

from chalicelib.platform import resources
from infra.gateway_responses import GATEWAY_ERRORS

PROJECT_ROOT = Path(__file__).resolve().parents[1]
STAGE_PATTERN = re.compile(r"^[a-z][a-z0-9-]{0,19}$")  # same rule as Settings.stage
LOG_LEVEL = "INFO"
# Each is invoked once after the first deployment, before the API exists: the key sets are initialised by their
# rotators alone (the functions that use the keys only read them).
KEY_INITIALISERS = {"rotate_signing_keys": "InitialiseSigningKeys", "rotate_webhook_keys": "InitialiseWebhookKeys"}
# Never deployed: every function's Role is overridden (and checked) after packaging.
ROLE_PLACEHOLDER = "replaced-per-function-by-infra-stack"

# Envelope encryption (chalicelib/platform/kms_envelope.py) seals with GenerateDataKey.
KEY_ACTIONS: dict[str, tuple[str, ...]] = {
    "encrypt": ("kms:Encrypt", "kms:GenerateDataKey"),
    "decrypt": ("kms:Decrypt",),
    "encrypt_decrypt": ("kms:Encrypt", "kms:GenerateDataKey", "kms:Decrypt"),
    "sign": ("kms:Sign", "kms:GetPublicKey"),
}
FUNCTION_ACTIONS: dict[str, tuple[str, ...]] = {"invoke": ("lambda:InvokeFunction",)}
SECRET_READ = ("secretsmanager:GetSecretValue", "secretsmanager:DescribeSecret")
SECRET_WRITE = ("secretsmanager:PutSecretValue", "secretsmanager:UpdateSecretVersionStage")
SECRET_ACTIONS: dict[str, tuple[str, ...]] = {
    "read": SECRET_READ,
    "write": SECRET_WRITE,
    "read_write": SECRET_READ + SECRET_WRITE,
}


_TRIGGER_CODE = """
import os
import boto3
from botocore.config import Config

# Waits for the target (whose own timeout is shorter); no retry, a failure fails the deployment.
LAMBDA = boto3.client("lambda", config=Config(read_timeout=170, retries={"total_max_attempts": 1}))

def handler(event, context):
    response = LAMBDA.invoke(FunctionName=os.environ["TARGET_FUNCTION"])
    if "FunctionError" in response:
        raise RuntimeError(response["Payload"].read().decode())
"""


def _with_undeclared_methods(api: CfnResource) -> dict[str, Any]:
    """The API's paths, each also with `x-amazon-apigateway-any-method` integrated as its declared methods are.

    API Gateway answers a method that a path does not declare with MISSING_AUTHENTICATION_TOKEN, our 404 for an
    unknown path. Passed to the API function instead, Chalice answers it 405 METHOD_NOT_ALLOWED with `Allow` (in
    the envelope, platform/router.py), as chalice local and the in-process tests do. Declared methods take
    precedence over ANY, so they are unchanged.
    """
    if not isinstance(api, sam.CfnApi) or not isinstance(api.definition_body, dict):
        raise ValueError("chalice package produced no REST API definition to extend")
    paths: dict[str, dict[str, Any]] = api.definition_body["paths"]
    extended: dict[str, dict[str, Any]] = {}
    for path, methods in paths.items():
        declared = next(iter(methods.values()))  # every route has the same proxy integration with the API function
        any_method = {key: declared[key] for key in ("responses", "x-amazon-apigateway-integration")}
        extended[path] = {**methods, "x-amazon-apigateway-any-method": any_method}
    return extended


def sam_logical_id(function_name: str) -> str:
    """Logical id `chalice package` gives a Lambda function (it renames the REST API handler)."""
    return "APIHandler" if function_name == "api_handler" else to_cfn_resource_name(function_name)


@contextmanager
def _packaging_sandbox(region: str) -> Iterator[None]:
    """What `chalice package` needs around it, and the mess it makes, undone.

    It needs a region name (for the API Gateway service principal), never
    credentials. It copies config.json's environment variables into `os.environ`
    (restored, so the synth process keeps no stage's settings) and writes a
    27 MB package into `./chalice.out/<uuid>/` on every synth (a temporary
    directory instead: the construct stages the zip into cdk.out and reads the
    template before it returns).
    """
    saved_environ, saved_cwd = dict(os.environ), os.getcwd()
    with tempfile.TemporaryDirectory(prefix="chalice-") as scratch:
        os.environ["AWS_DEFAULT_REGION"] = region
        os.chdir(scratch)
        try:
            yield
        finally:
            os.chdir(saved_cwd)
            os.environ.clear()
            os.environ.update(saved_environ)


class DompetStack(Stack):
    def __init__(
        self,
        scope: Construct,
        *,
        stage: str,
        tables: tuple[resources.Table, ...] = resources.TABLES,
        queues: tuple[resources.Queue, ...] = resources.QUEUES,
        keys: tuple[resources.Key, ...] = resources.KEYS,
        secrets: tuple[resources.Secret, ...] = resources.SECRETS,
        buckets: tuple[resources.Bucket, ...] = resources.BUCKETS,
        functions: tuple[resources.Function, ...] = resources.FUNCTIONS,
        source_dir: Path = PROJECT_ROOT,
        **kwargs: Any,
    ) -> None:
        if not STAGE_PATTERN.match(stage):
            raise ValueError(f"invalid stage {stage!r}: lower-case letters, digits and '-', at most 20")
        super().__init__(scope, stage, stack_name=f"dompet-{stage}", **kwargs)
        if self.to_string() != stage:
            raise ValueError("DompetStack must be created directly in the App: Chalice takes the stage from its path")
        self.stage = stage
        self.bucket_suffix = f"-{self.account}-{self.region}"

        self.tables = {t.name: self._table(t) for t in tables}
        self.dead_letter_queues: dict[str, sqs.Queue] = {}  # by `<queue>-dlq`, filled by _queue
        self.queues = {q.name: self._queue(q) for q in queues}
        self.keys = {k.name: self._key(k) for k in keys}
        self.secrets = {s.name: self._secret(s) for s in secrets}
        self.buckets = {b.name: self._bucket(b) for b in buckets}
        self.roles = {f.name: self._role(f) for f in functions}

        self.chalice = self._chalice_app(source_dir)
        self._assign_roles_and_environment(functions)
        self._add_gateway_responses()
        for rotator, construct_id in KEY_INITIALISERS.items():
            if rotator in self.roles:
                self._initialise_keys(rotator, construct_id)

    # --- data resources -------------------------------------------------------

    def _table(self, definition: resources.Table) -> dynamodb.Table:
        # resources.py has no attribute types: every key attribute is a string.
        def attribute(name: str | None) -> dynamodb.Attribute | None:
            return dynamodb.Attribute(name=name, type=dynamodb.AttributeType.STRING) if name else None

        table = dynamodb.Table(
            self,
            f"{to_cfn_resource_name(definition.name)}Table",
            table_name=resources.table_name(self.stage, definition.name),
            partition_key=attribute(definition.partition_key),
            sort_key=attribute(definition.sort_key),
            billing_mode=dynamodb.BillingMode.PAY_PER_REQUEST,
            point_in_time_recovery_specification=dynamodb.PointInTimeRecoverySpecification(
                point_in_time_recovery_enabled=True
            ),
            time_to_live_attribute=definition.ttl_attribute,
            removal_policy=RemovalPolicy.RETAIN,
        )
        for index in definition.indexes:
            table.add_global_secondary_index(
                index_name=index.name,
                partition_key=attribute(index.partition_key),
                sort_key=attribute(index.sort_key),
            )
        return table

    def _queue(self, definition: resources.Queue) -> sqs.Queue:
        construct_id = to_cfn_resource_name(definition.name)
        dlq = sqs.Queue(
            self,
            f"{construct_id}DeadLetterQueue",
            queue_name=resources.dlq_name(self.stage, definition.name),
            retention_period=Duration.seconds(definition.dlq_retention_s),
            encryption=sqs.QueueEncryption.SQS_MANAGED,
            enforce_ssl=True,
        )
        self.dead_letter_queues[f"{definition.name}-dlq"] = dlq
        return sqs.Queue(
            self,
            f"{construct_id}Queue",
            queue_name=resources.queue_name(self.stage, definition.name),
            visibility_timeout=Duration.seconds(definition.visibility_timeout_s),
            retention_period=Duration.seconds(definition.retention_s),
            dead_letter_queue=sqs.DeadLetterQueue(max_receive_count=definition.max_receive_count, queue=dlq),
            encryption=sqs.QueueEncryption.SQS_MANAGED,
            enforce_ssl=True,
        )

    def _key(self, definition: resources.Key) -> kms.Key:
        return kms.Key(
            self,
            f"{to_cfn_resource_name(definition.name)}Key",
            alias=resources.key_alias(self.stage, definition.name),
            description=definition.purpose,
            key_spec=kms.KeySpec(definition.spec),
            key_usage=kms.KeyUsage(definition.usage),
            # KMS rotates symmetric encryption keys only; it rejects the flag elsewhere.
            enable_key_rotation=definition.spec == "SYMMETRIC_DEFAULT",
        )

    def _secret(self, definition: resources.Secret) -> secretsmanager.Secret:
        # The initial value is a generated random string; its owner (e.g.
        # rotate_signing_keys for the JWT keys) treats it as "not initialised".
        return secretsmanager.Secret(
            self,
            f"{to_cfn_resource_name(definition.name)}Secret",
            secret_name=resources.secret_name(self.stage, definition.name),
            description=definition.purpose,
        )

    def _bucket(self, definition: resources.Bucket) -> s3.Bucket:
        return s3.Bucket(
            self,
            f"{to_cfn_resource_name(definition.name)}Bucket",
            bucket_name=resources.bucket_name(self.stage, definition.name, self.bucket_suffix),
            block_public_access=s3.BlockPublicAccess.BLOCK_ALL,
            encryption=s3.BucketEncryption.S3_MANAGED,
            enforce_ssl=True,
            lifecycle_rules=[s3.LifecycleRule(expiration=Duration.days(definition.expire_after_days))],
        )

    # --- roles and grants -----------------------------------------------------

    def _role(self, function: resources.Function) -> iam.Role:
        role = iam.Role(
            self,
            f"{to_cfn_resource_name(function.name)}Role",
            assumed_by=iam.ServicePrincipal("lambda.amazonaws.com"),
            description=f"Lambda {function.name}: {function.purpose}"[:1000],
            managed_policies=[
                iam.ManagedPolicy.from_aws_managed_policy_name("service-role/AWSLambdaBasicExecutionRole")
            ],
        )
        for grant in function.grants:
            self._grant(role, grant)
        return role

    def _grant(self, role: iam.Role, grant: resources.Grant) -> None:
        where = f"{grant.kind} {grant.name!r} ({grant.access})"
        reads, writes = grant.access in ("read", "read_write"), grant.access in ("write", "read_write")
        allowed = {"key": get_args(resources.KeyAccess), "function": tuple(FUNCTION_ACTIONS)}
        if grant.access not in allowed.get(grant.kind, get_args(resources.Access)):
            raise ValueError(f"grant {where}: unknown access")
        try:
            if grant.kind == "table":
                table = self.tables[grant.name]
                if reads:
                    table.grant_read_data(role)
                if writes:
                    table.grant_write_data(role)
            elif grant.kind == "bucket":
                bucket = self.buckets[grant.name]
                if reads:
                    bucket.grant_read(role)
                if writes:
                    bucket.grant_write(role)
            elif grant.kind == "queue":
                # `<queue>-dlq` names a queue's dead-letter queue (e.g. to dead-letter a message explicitly).
                queue = self.queues[grant.name] if grant.name in self.queues else self.dead_letter_queues[grant.name]
                if reads:
                    queue.grant_consume_messages(role)
                if writes:
                    queue.grant_send_messages(role)
            elif grant.kind == "key":
                self.keys[grant.name].grant(role, *KEY_ACTIONS[grant.access])
            elif grant.kind == "secret":
                # Explicit actions: Secret.grant_write would add UpdateSecret, which can change the key and policy.
                iam.Grant.add_to_principal(
                    grantee=role,
                    actions=list(SECRET_ACTIONS[grant.access]),
                    resource_arns=[self.secrets[grant.name].secret_arn],
                )
            elif grant.kind == "function":
                resources.function(grant.name)  # must be defined
                # By name (the stack sets every function's name), so no function depends on another's role.
                arn = self.format_arn(
                    service="lambda",
                    resource="function",
                    resource_name=resources.function_name(self.stage, grant.name),
                    arn_format=ArnFormat.COLON_RESOURCE_NAME,
                )
                iam.Grant.add_to_principal(
                    grantee=role, actions=list(FUNCTION_ACTIONS[grant.access]), resource_arns=[arn]
                )
            else:
                raise ValueError(f"grant {where}: unknown resource kind")
        except KeyError:
            raise ValueError(f"grant {where}: no such {grant.kind} in the definitions") from None

    # --- the Chalice app ------------------------------------------------------

    def _chalice_app(self, source_dir: Path) -> Chalice:
        region = self.region
        if Token.is_unresolved(region):  # env-agnostic stack: fall back to the caller's region
            region = os.environ.get("AWS_REGION") or os.environ.get("AWS_DEFAULT_REGION") or ""
        if not region:
            raise ValueError("chalice package needs a region: give the stack an env or set AWS_REGION")
        stage_config = {
            "manage_iam_role": False,
            "iam_role_arn": ROLE_PLACEHOLDER,
            "autogen_policy": False,
        }
        with _packaging_sandbox(region):
            return Chalice(self, "Chalice", source_dir=str(source_dir), stage_config=stage_config)

    def _packaged(self, resource_type: str) -> dict[str, CfnResource]:
        return {
            child.node.id: child
            for child in self.chalice.sam_template.node.children
            if isinstance(child, CfnResource) and child.cfn_resource_type == resource_type
        }

    def _assign_roles_and_environment(self, functions: tuple[resources.Function, ...]) -> None:
        if self._packaged("AWS::IAM::Role") or self._packaged("AWS::IAM::Policy"):
            raise ValueError("Chalice generated IAM resources: drop manage_iam_role/iam_role_arn from config.json")
        packaged = self._packaged("AWS::Serverless::Function")
        expected = {sam_logical_id(f.name): f for f in functions}
        if unknown := sorted(set(packaged) - set(expected)):
            raise ValueError(f"app.py defines Lambda functions {unknown} with no entry in resources.FUNCTIONS")
        if missing := sorted(set(expected) - set(packaged)):
            raise ValueError(f"resources.FUNCTIONS defines {missing}, which app.py does not")
        environment = {
            "DOMPET_STAGE": self.stage,
            "DOMPET_BUCKET_SUFFIX": self.bucket_suffix,
            "DOMPET_LOG_LEVEL": LOG_LEVEL,
        }
        for logical_id, function in expected.items():
            role = self.roles[function.name]
            packaged[logical_id].add_property_override("Role", role.role_arn)
            packaged[logical_id].add_property_override(
                "FunctionName", resources.function_name(self.stage, function.name)
            )
            packaged[logical_id].add_property_override("Timeout", function.timeout_s)
            packaged[logical_id].add_property_override("MemorySize", function.memory_mb)
            # The role's policies must exist before the function: an SQS event source
            # is validated against them, and the trigger below invokes at once.
            packaged[logical_id].node.add_dependency(role)
            for name, value in environment.items():
                self.chalice.add_environment_variable(name, value, logical_id)
            self._bind_queue_events(packaged[logical_id], function)

    def _bind_queue_events(self, packaged: CfnResource, function: resources.Function) -> None:
        """Point the function's SQS event source at this stack's queue.

        Chalice writes the queue ARN from the name app.py computed at import, with
        whatever stage the synth process had; the stack knows the real queue. Chalice
        gives a function at most one SQS event, named `<Function>SqsEventSource`.
        """
        if len(function.consumes) > 1:
            raise ValueError(f"{function.name}: Chalice allows one SQS event source per function")
        for queue_name in function.consumes:
            event = to_cfn_resource_name(f"{function.name}-sqs-event-source")
            queue = self.queues[queue_name]
            packaged.add_property_override(f"Events.{event}.Properties.Queue", queue.queue_arn)
            # The consumers answer with partial batch responses (platform/consumers.py): only the records that
            # failed return to the queue.
            packaged.add_property_override(
                f"Events.{event}.Properties.FunctionResponseTypes", ["ReportBatchItemFailures"]
            )
            packaged.node.add_dependency(queue)

    def _add_gateway_responses(self) -> None:
        apis = self._packaged("AWS::Serverless::Api")
        if not apis:
            return  # no routes, no REST API
        responses: dict[str, dict[str, Any]] = {}
        for response_type, error in GATEWAY_ERRORS.items():
            responses[response_type] = {"responseTemplates": {"application/json": error.body()}}
            if not response_type.startswith("DEFAULT_"):
                responses[response_type]["statusCode"] = str(error.status)
        for api in apis.values():
            api.add_property_override("DefinitionBody.x-amazon-apigateway-gateway-responses", responses)
            api.add_property_override("DefinitionBody.paths", _with_undeclared_methods(api))
            # A browser asks for the /docs bundle with `Accept: */*`; API Gateway decodes a base64 answer only when
            # the first Accept type is a binary media type (docs/reference.md). Chalice decodes base64 request bodies.
            body = api.definition_body if isinstance(api, sam.CfnApi) and isinstance(api.definition_body, dict) else {}
            binary = body.get("x-amazon-apigateway-binary-media-types", [])
            api.add_property_override("DefinitionBody.x-amazon-apigateway-binary-media-types", sorted({*binary, "*/*"}))

    def _initialise_keys(self, rotator_name: str, construct_id: str) -> None:
        """Run a key rotator once after the first deployment, before the API exists.

        `triggers.Trigger` needs an L2 function (it invokes a version), and the
        Chalice functions are SAM resources, so a tiny trigger function invokes
        it and fails the deployment if it fails.
        """
        rotator = self.chalice.get_resource(sam_logical_id(rotator_name))
        rotator_arn = rotator.get_att("Arn").to_string()
        trigger = triggers.TriggerFunction(
            self,
            construct_id,
            runtime=lambda_.Runtime.PYTHON_3_11,
            handler="index.handler",
            code=lambda_.Code.from_inline(_TRIGGER_CODE),
            timeout=Duration.minutes(3),
            environment={"TARGET_FUNCTION": rotator_arn},
            execute_on_handler_change=False,
        )
        trigger.add_to_role_policy(iam.PolicyStatement(actions=["lambda:InvokeFunction"], resources=[rotator_arn]))
        trigger.execute_after(rotator, self.roles[rotator_name], *self.secrets.values())
        trigger.execute_before(*self._packaged("AWS::Serverless::Api").values())
