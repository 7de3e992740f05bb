"""Operator command: create organizations, clients and apps; prints secrets once.

    python -m chalicelib.tenancy.admin create-tenant --name "Acme"
    python -m chalicelib.tenancy.admin create-organization --name "Acme"
    python -m chalicelib.tenancy.admin create-client --organization-id ORG --name "Acme backend"
    python -m chalicelib.tenancy.admin create-app --client-id CLIENT --name "Acme shop"

It talks to the AWS account of the current credentials (or the local moto server
through AWS_ENDPOINT_URL) for the stage in DOMPET_STAGE.
"""

from __future__ import annotations

import argparse
import sys

from chalicelib.tenancy import service
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
    args = parser.parse_args(argv)

    try:
        issued = _run(args)
    except service.TenancyError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(issued.model_dump_json(indent=2, exclude_none=True))
    if issued.clientSecret or issued.appSecret:
        print("Store the secrets now: they are not shown again.", file=sys.stderr)
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
