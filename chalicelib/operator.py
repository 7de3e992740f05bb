"""Operator command: create organizations, clients and apps; prints secrets once.

    python -m chalicelib.operator create-tenant --name "Acme" [--admin-email EMAIL]
    python -m chalicelib.operator invite --org ORG --email EMAIL [--role admin|developer|viewer]
    python -m chalicelib.operator create-organization --name "Acme"
    python -m chalicelib.operator create-client --organization-id ORG --name "Acme backend"
    python -m chalicelib.operator create-app --client-id CLIENT --name "Acme shop"
    python -m chalicelib.operator set-withdrawal-allowlist --app-id APP --organization-id ORG \
        --address 0x... [--address ...]
    python -m chalicelib.operator set-withdrawal-allowlist --app-id APP --organization-id ORG --off
    python -m chalicelib.operator review-withdrawal --withdrawal-id ID [--settle | --release]
    python -m chalicelib.operator set-policy-key --app-id APP --client-id CLIENT --public-key BASE64

It talks to the AWS account of the current credentials (or the local moto server
through AWS_ENDPOINT_URL) for the stage in DOMPET_STAGE.

A composition root, like the functions' entry points: it may import any domain (custody's allowlist and
review live with custody; only this command writes the allowlist; the policy keys are in the cosigner's own
table, which no other function writes). No function imports it.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import sys

from pydantic import ValidationError

from chalicelib.console import accounts, audit
from chalicelib.console.models import InviteForm, Role
from chalicelib.custody.withdrawals import operator_policy, review
from chalicelib.platform import aws
from chalicelib.platform.errors import ApiError
from chalicelib.platform.settings import load_settings
from chalicelib.policies import signed
from chalicelib.policies import store as policy_store
from chalicelib.tenancy import service, store
from chalicelib.tenancy.models import IssuedCredentials
from chalicelib.wiring import wire


def main(argv: list[str] | None = None) -> int:
    wire()  # the hooks the commands reach (e.g. the outbox's subscriber, for the event a reviewed withdrawal writes)
    parser = argparse.ArgumentParser(prog="python -m chalicelib.operator", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    create_tenant = commands.add_parser("create-tenant", help="organization + client + app + first admin's invite")
    create_tenant.add_argument("--name", required=True)
    create_tenant.add_argument("--admin-email", help="the first admin's email (else asked when the link is opened)")
    invite = commands.add_parser("invite", help="a console invite link for a member of an organization")
    invite.add_argument("--org", required=True, help="organization id")
    invite.add_argument("--email", required=True)
    invite.add_argument("--role", choices=[r.value for r in Role], default=Role.ADMIN.value)
    commands.add_parser("create-organization").add_argument("--name", required=True)
    create_client = commands.add_parser("create-client")
    create_client.add_argument("--organization-id", required=True)
    create_client.add_argument("--name", required=True)
    create_app = commands.add_parser("create-app")
    create_app.add_argument("--client-id", required=True)
    create_app.add_argument("--name", required=True)
    allowlist = commands.add_parser("set-withdrawal-allowlist", help="custody withdrawals only to these addresses")
    allowlist.add_argument("--app-id", required=True)
    allowlist.add_argument(
        "--organization-id",
        required=True,
        help="the app's organization, as its owner gives it (the cosigner judges by it, never by what the API "
        "function can write)",
    )
    allowlist.add_argument("--address", action="append", default=[])
    allowlist.add_argument("--off", action="store_true", help="withdrawals to any address")
    review = commands.add_parser(
        "review-withdrawal", help="a custody withdrawal kept held: what the chain shows; settle or release it"
    )
    review.add_argument("--withdrawal-id", required=True)
    decision = review.add_mutually_exclusive_group()
    decision.add_argument("--settle", action="store_true", help="debit it: the chain shows it paid")
    decision.add_argument("--release", action="store_true", help="hold back to the account: nothing can pay it")
    policy_key = commands.add_parser(
        "set-policy-key", help="register (or replace) the Ed25519 public key that signs an app's signing policies"
    )
    policy_key.add_argument("--app-id", required=True)
    policy_key.add_argument(
        "--client-id",
        help="the app's client, as its integrator gives it (required for a first key; a replacement keeps the "
        "client recorded with the first)",
    )
    policy_key.add_argument("--public-key", required=True, help="base64 of the 32-byte public key")
    args = parser.parse_args(argv)
    if args.command == "set-withdrawal-allowlist":
        return _set_allowlist(args)
    if args.command == "review-withdrawal":
        return _review_withdrawal(args)
    if args.command == "set-policy-key":
        return _set_policy_key(args)
    if args.command == "invite":
        return _invite(args)

    if args.command == "create-tenant" and args.admin_email:
        try:
            InviteForm.model_validate({"email": args.admin_email, "role": "admin"})
        except ValidationError:
            print(f"error: {args.admin_email!r} is not an email address", file=sys.stderr)
            return 1
    try:
        issued = _run(args)
    except service.TenancyError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    printed = issued.model_dump(exclude_none=True)
    if args.command == "create-tenant":
        email = (
            InviteForm.model_validate({"email": args.admin_email, "role": "admin"}).email if args.admin_email else None
        )
        printed["adminInvite"] = _invite_link(issued.organizationId, email, Role.ADMIN)
    print(json.dumps(printed, indent=2))
    if issued.clientSecret or issued.appSecret:
        print("Store the secrets now: they are not shown again.", file=sys.stderr)
    return 0


def _invite(args: argparse.Namespace) -> int:
    """A single-use console invite link (DOMPET_CONSOLE_INVITE_S) for a member of the organization."""
    try:
        form = InviteForm.model_validate({"email": args.email, "role": args.role})
    except ValidationError:
        print(f"error: {args.email!r} is not an email address", file=sys.stderr)
        return 1
    try:
        link = _invite_link(args.org, form.email, form.role)
    except ApiError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 1
    print(json.dumps(link, indent=2))
    return 0


def _invite_link(organization_id: str, email: str | None, role: Role) -> dict[str, str | None]:
    """An invite made by the operator (logged in the organization's audit log) and its link."""
    made, token = accounts.invite(audit.operator(organization_id), email, role)
    return {
        "url": f"{_console_base()}/console/invite/{token}",
        "email": made.email,
        "role": made.role.value,
        "expiresAt": made.expiresAt,
    }


def _console_base() -> str:
    """Where invite links open: DOMPET_CONSOLE_URL; unset, the local stack's API (its `stack.json`, written beside
    the networks file it serves), so that a printed link opens as it is; else a path alone."""
    settings = load_settings()
    if settings.console_url:
        return settings.console_url.rstrip("/")
    stack = settings.networks_file.parent / "stack.json"
    if settings.stage == "local" and stack.is_file():
        with contextlib.suppress(ValueError, KeyError, TypeError):
            return str(json.loads(stack.read_text())["apiUrl"]).rstrip("/")
    return ""


def _set_allowlist(args: argparse.Namespace) -> int:
    """Only the operator sets an app's withdrawal allowlist: no function may write where it is kept. The allowlist
    records the organization the operator names, which `tenancy` (written by the API function) must agree with and
    which never changes once recorded: the cosigner binds keys to it."""
    addresses: list[str] = []
    for given in args.address:
        valid = operator_policy.valid_destination(given)
        if valid is None:
            print(f"error: {given!r} is neither an EVM address nor a configured Bitcoin network's", file=sys.stderr)
            return 1
        addresses.append(valid)
    found = store.get_app(args.app_id)  # (the app's record only: its secret is not opened)
    if found is None:
        print(f"error: no app {args.app_id}", file=sys.stderr)
        return 1
    if found[0].organizationId != args.organization_id:
        print(f"error: tenancy does not put app {args.app_id} in organization {args.organization_id}", file=sys.stderr)
        return 1
    try:
        listed = operator_policy.set_allowlist(args.app_id, args.organization_id, not args.off, addresses)
    except operator_policy.AllowlistOrganizationError as exc:
        print(f"error: {exc} (--organization-id)", file=sys.stderr)
        return 1
    print(json.dumps(listed, indent=2))
    return 0


def _review_withdrawal(args: argparse.Namespace) -> int:
    """Prints what the chain shows for the withdrawal; with a decision, makes it only if the chain allows it."""
    act = review.settle if args.settle else review.release if args.release else review.inspect
    try:
        report = act(args.withdrawal_id)
    except review.ReviewRefusedError as exc:
        if exc.report:
            print(json.dumps(exc.report, indent=2))
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(json.dumps(report, indent=2))
    return 0


def _set_policy_key(args: argparse.Namespace) -> int:
    """The app's policy key (sequence 1), bound to the client the operator names (not read from `tenancy`, which
    the API function writes), or the operator's replacement of a lost or leaked one (which keeps that client and
    continues its sequence, so no rotation signed for an earlier key can be replayed). Prints the record: no
    secret in it."""
    try:
        record = policy_store.register_policy_key(args.app_id, args.public_key, args.client_id)
    except signed.PolicyKeyError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 1
    except policy_store.UnknownAppError:
        print(f"error: no app {args.app_id}", file=sys.stderr)
        return 1
    except policy_store.AppClientError as exc:
        print(f"error: {exc} (--client-id)", file=sys.stderr)
        return 1
    except aws.ConditionFailedError:
        print("error: the app's policy key changed meanwhile (a rotation); run the command again", file=sys.stderr)
        return 1
    print(json.dumps(record, indent=2))
    return 0


def _run(args: argparse.Namespace) -> IssuedCredentials:
    if args.command == "create-tenant":
        return service.create_tenant(args.name)
    if args.command == "create-organization":
        return IssuedCredentials(organizationId=service.create_organization(args.name).organizationId)
    if args.command == "create-client":
        client, secret = service.create_client(args.organization_id, args.name)
        return IssuedCredentials(organizationId=client.organizationId, clientId=client.clientId, clientSecret=secret)
    app, secret = service.create_app(args.client_id, args.name)
    return IssuedCredentials(
        organizationId=app.organizationId, clientId=app.clientId, appId=app.appId, appSecret=secret
    )


if __name__ == "__main__":
    sys.exit(main())
