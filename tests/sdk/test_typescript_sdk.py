"""The TypeScript SDK (sdk/typescript, `@dompet/sdk`): its own unit tests (`npm test`: tsc --strict, node:test), its
generated types current against the app's document, `npm install ./sdk/typescript` in a fresh project that then
compiles the README's quick start and the end-to-end script with `tsc --strict`, and both run against the local
stack (`make dev`, the session's `stack` fixture): tests/sdk/typescript_e2e.ts logs a user in, creates an MPC wallet,
sends coin and sees it mined, reads balances, creates a smart account owned by that wallet and lists its user
operations page by page, sets a webhook URL, receives `webhook.test` on a local receiver that verifies it with
`verifyWebhook`, and has a forged delivery refused by that receiver."""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[2]
SDK = ROOT / "sdk" / "typescript"
HERE = Path(__file__).resolve().parent
TSC = SDK / "node_modules" / "typescript" / "bin" / "tsc"


def readme_quick_start() -> str:
    """README.md's TypeScript quick start (the same first call as the Python one), as printed there."""
    readme = (ROOT / "README.md").read_text()
    blocks = re.findall(r"```ts\n(.*?)```", readme, flags=re.DOTALL)
    [block] = [b for b in blocks if '"@dompet/sdk"' in b and "/api/v1/auth/whoami" in b]
    return block


def run(command: list[str], cwd: Path, timeout: float = 300, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        command, cwd=cwd, capture_output=True, text=True, timeout=timeout, check=False, env=env or os.environ.copy()
    )
    assert done.returncode == 0, f"{' '.join(command)} failed:\n{done.stdout[-6000:]}\n{done.stderr[-6000:]}"
    return done.stdout


@pytest.fixture(scope="module")
def sdk() -> Path:
    """The package with its pinned devDependencies (`npm ci`, as `make deps` does) and built."""
    if not (SDK / "node_modules" / ".package-lock.json").exists():
        run(["npm", "ci", "--no-audit", "--no-fund", "--loglevel=error"], SDK)
    run(["npm", "run", "--silent", "build"], SDK)
    return SDK


def test_unit_tests_pass(sdk):
    """Signing vectors, canonical queries, idempotency keys, retries, typed errors, pages, sessions, webhook
    verification, and the typed calls' compile-time checks (test/types.test.ts)."""
    out = run(["npm", "test", "--silent"], sdk)
    assert "# fail 0" in out and "# pass " in out, out[-3000:]


def test_generated_types_are_current(sdk):
    from devtools import sdk as generator

    assert generator.check_typescript(generator.document()) == [], "run `make sdk` and commit"


@pytest.fixture(scope="module")
def consumer(sdk, tmp_path_factory) -> Path:
    """A fresh project that ran `npm install <repo>/sdk/typescript` and compiles TypeScript with the SDK's pinned
    tsc and @types/node, `--strict`."""
    project = tmp_path_factory.mktemp("ts-consumer")
    (project / "package.json").write_text(json.dumps({"name": "consumer", "private": True, "type": "module"}))
    run(["npm", "install", "--no-audit", "--no-fund", "--loglevel=error", str(sdk)], project)
    config = {
        "compilerOptions": {
            "target": "ES2022",
            "module": "NodeNext",
            "moduleResolution": "NodeNext",
            "strict": True,
            "outDir": "out",
            "typeRoots": [str(sdk / "node_modules" / "@types")],
            "types": ["node"],
        },
        "include": ["*.ts"],
    }
    (project / "tsconfig.json").write_text(json.dumps(config))
    return project


def compile_in(project: Path) -> None:
    run(["node", str(TSC), "-p", "tsconfig.json"], project)


def test_npm_install_in_a_fresh_project(consumer):
    installed = json.loads((consumer / "node_modules" / "@dompet" / "sdk" / "package.json").read_text())
    dependencies = {"openapi-fetch": "0.17.0", "canonicalize": "4.0.0"}
    assert installed["name"] == "@dompet/sdk" and installed["dependencies"] == dependencies
    probe = (
        'import { Dompet, verifyWebhook, signPolicy, API_VERSION } from "@dompet/sdk";\n'
        'const d = new Dompet({ baseUrl: "http://127.0.0.1:1", clientSecret: "dcs_x" });\n'
        "console.log(JSON.stringify([typeof d.login, typeof verifyWebhook, typeof signPolicy, API_VERSION]));\n"
    )
    (consumer / "probe.ts").write_text(probe)
    compile_in(consumer)
    out = run(["node", "out/probe.js"], consumer)
    assert json.loads(out)[:3] == ["function", "function", "function"]


def _e2e_env(info: dict[str, Any]) -> dict[str, str]:
    network = info["networks"][0]
    demo = info["demo"]
    stack = {
        "apiUrl": info["apiUrl"],
        "appId": demo["appId"],
        "appSecret": demo["appSecret"],
        "clientSecret": demo["clientSecret"],
        "rpcUrl": network["rpcUrl"],
        "network": network["name"],
        "chainId": network["chainId"],
        "usdt": network["tokens"]["usdt"],
        "pool": network["poolAddress"],
    }
    return {**os.environ, "DOMPET_E2E": json.dumps(stack)}


@pytest.mark.integration
def test_quick_start_and_the_scenario_against_the_local_stack(consumer, stack):
    info = stack["info"]
    demo = info["demo"]
    # The quick start reads the demo app from .local/stack.json and calls make dev's port: here, the session's stack.
    (consumer / ".local").mkdir(exist_ok=True)
    (consumer / ".local" / "stack.json").write_text(json.dumps(info))
    quick = readme_quick_start()
    assert "http://127.0.0.1:8000" in quick
    (consumer / "quickstart.ts").write_text(quick.replace("http://127.0.0.1:8000", info["apiUrl"]))
    shutil.copy(HERE / "typescript_e2e.ts", consumer / "e2e.ts")
    compile_in(consumer)

    out = run(["node", "out/quickstart.js"], consumer, timeout=60)
    for field in ("appId", "clientId", "organizationId"):
        assert f"{field}: '{demo[field]}'" in out, out

    out = run(["node", "out/e2e.js"], consumer, timeout=600, env=_e2e_env(info))
    lines = [json.loads(line) for line in out.splitlines() if line.startswith("{")]
    steps = {line["step"]: line for line in lines if "step" in line}
    assert lines[-1]["done"] is True, out
    assert steps["send-coin"]["status"] == "mined"
    assert [len(page) for page in steps["pages"]["pages"]] == [2, 1]
    assert steps["webhook"]["type"] == "webhook.test"
    assert (steps["forged"]["status"], steps["forged"]["reason"]) == (401, "INVALID_SIGNATURE")
