"""CDK entry point. Run the CDK CLI from the repository root (cdk.json is there):

    npx aws-cdk@2 deploy -c stage=dev

It runs as `python -m infra.app` from the root on purpose: `chalice package`
imports the Chalice app as the module `app`, which must resolve to the root
app.py and not to this file.
"""

from __future__ import annotations

import os

import aws_cdk as cdk

from infra.stack import DompetStack


def main() -> None:
    app = cdk.App()
    stage = app.node.try_get_context("stage")
    if not stage:
        raise SystemExit("no stage: pass it as `-c stage=<stage>`, e.g. `npx aws-cdk@2 deploy -c stage=dev`")
    # The CLI resolves these from the AWS profile; a concrete region is what
    # `chalice package` needs, and a concrete account keeps bucket names readable.
    env = cdk.Environment(account=os.environ.get("CDK_DEFAULT_ACCOUNT"), region=os.environ.get("CDK_DEFAULT_REGION"))
    DompetStack(app, stage=str(stage), env=env)
    app.synth()


if __name__ == "__main__":
    main()
