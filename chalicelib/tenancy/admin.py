"""Operator command: create organizations, clients and apps; prints secrets once.

    python -m chalicelib.tenancy.admin create-tenant --name "Acme"
    python -m chalicelib.tenancy.admin create-organization --name "Acme"
    python -m chalicelib.tenancy.admin create-client --organization-id ORG --name "Acme backend"
    python -m chalicelib.tenancy.admin create-app --client-id CLIENT --name "Acme shop"
    python -m chalicelib.tenancy.admin set-withdrawal-allowlist --app-id APP --address 0x... [--address ...]
    python -m chalicelib.tenancy.admin set-withdrawal-allowlist --app-id APP --off
    python -m chalicelib.tenancy.admin review-withdrawal --withdrawal-id ID [--settle | --release]

It talks to the AWS account of the current credentials (or the local moto server
through AWS_ENDPOINT_URL) for the stage in DOMPET_STAGE.

A composition root, like the functions' entry points: it may import any domain (custody's allowlist and
review live with custody; only this command writes the allowlist). No function imports it.
"""

from __future__ import annotations

import argparse
import json
import sys

from chalicelib.custody import limits, review
from chalicelib.platform.addresses import checksum_address
from chalicelib.platform.errors import ApiError
from chalicelib.tenancy import service, store
from chalicelib.tenancy.models import IssuedCredentials


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m chalicelib.tenancy.admin", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("create-tenant", help="organization + client + app").add_argument("--name", required=True)
    commands.add_parser("create-organization").add_argument("--name", required=True)
    create_client = commands.add_parser("create-client")
    create_client.add_argument("--organization-id", required=True)
    create_client.add_argument("--name", required=True)
    create_app = commands.add_parser("create-app")
    create_app.add_argument("--client-id", required=True)
    create_app.add_argument("--name", required=True)
    allowlist = commands.add_parser("set-withdrawal-allowlist", help="custody withdrawals only to these addresses")
    allowlist.add_argument("--app-id", required=True)
    allowlist.add_argument("--address", action="append", default=[])
    allowlist.add_argument("--off", action="store_true", help="withdrawals to any address")
    review = commands.add_parser(
        "review-withdrawal", help="a custody withdrawal kept held: what the chain shows; settle or release it"
    )
    review.add_argument("--withdrawal-id", required=True)
    decision = review.add_mutually_exclusive_group()
    decision.add_argument("--settle", action="store_true", help="debit it: the chain shows it paid")
    decision.add_argument("--release", action="store_true", help="hold back to the account: nothing can pay it")
    args = parser.parse_args(argv)
    if args.command == "set-withdrawal-allowlist":
        return _set_allowlist(args)
    if args.command == "review-withdrawal":
        return _review_withdrawal(args)

    try:
        issued = _run(args)
    except service.TenancyError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(issued.model_dump_json(indent=2, exclude_none=True))
    if issued.clientSecret or issued.appSecret:
        print("Store the secrets now: they are not shown again.", file=sys.stderr)
    return 0


def _set_allowlist(args: argparse.Namespace) -> int:
    """Only the operator sets an app's withdrawal allowlist: no function may write where it is kept."""
    try:
        addresses = [checksum_address(a, "address") for a in args.address]
    except ApiError as exc:
        print(f"error: {exc.message}", file=sys.stderr)
        return 1
    if store.get_app(args.app_id) is None:  # (the app's record only: its secret is not opened)
        print(f"error: no app {args.app_id}", file=sys.stderr)
        return 1
    print(json.dumps(limits.set_allowlist(args.app_id, not args.off, addresses), indent=2))
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
