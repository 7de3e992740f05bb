"""AWS CDK app for Dompet: `infra.stack.DompetStack`, entry point `infra.app` (see docs/deploy.md)."""
