"""Test environment: AWS is moto in process, with every resource bootstrapped from resources.py."""

from __future__ import annotations

import os

# Before any project import: settings are read once per process.
for _name in ("AWS_ENDPOINT_URL", "AWS_PROFILE", "AWS_SESSION_TOKEN"):
    os.environ.pop(_name, None)
os.environ.update(
    {
        "AWS_ACCESS_KEY_ID": "testing",
        "AWS_SECRET_ACCESS_KEY": "testing",
        "AWS_DEFAULT_REGION": "us-east-1",
        "AWS_REGION": "us-east-1",
        "DOMPET_STAGE": "test",
        "DOMPET_LOG_LEVEL": "INFO",
        "DOMPET_PARTY_TRANSPORT": "in_process",
    }
)

import json  # noqa: E402
import socket  # noqa: E402
from collections.abc import Callable, Iterator  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402
from moto import mock_aws  # noqa: E402

from chalicelib.platform import aws, cache, networks, settings  # noqa: E402
from chalicelib.tenancy import service as tenancy  # noqa: E402
from chalicelib.tenancy.models import IssuedCredentials  # noqa: E402
from devtools import bootstrap, moto_patches  # noqa: E402


def _no_rsa_for_symmetric_keys() -> None:
    """moto makes an RSA-2048 private key for every KMS key, symmetric ones included (about 0.1 s each, most
    of a test's AWS bootstrap). A symmetric key never uses it: those share one, generated once."""
    from moto.kms import models

    generate = models.generate_private_key
    shared: list[object] = []

    def generate_private_key(key_spec: str):  # type: ignore[no-untyped-def]
        if key_spec != "SYMMETRIC_DEFAULT":
            return generate(key_spec)
        if not shared:
            shared.append(generate(key_spec))
        return shared[0]

    models.generate_private_key = generate_private_key


_no_rsa_for_symmetric_keys()
moto_patches.in_process_requests_are_serialised()
moto_patches.kms_signs_digests()
moto_patches.dynamodb_requests_are_atomic()
moto_patches.dynamodb_transactions_back_up_items()
moto_patches.dynamodb_refuses_oversized_keys()
moto_patches.sqs_receives_without_rereading_the_queue()


# Every AWS call a function makes is recorded for the IAM test (tests/iam_recorder.py).
from tests.iam_recorder import pytest_collection_modifyitems  # noqa: E402, F401


def pytest_configure(config: pytest.Config) -> None:
    """The hooks, as every entry point wires them (chalicelib/wiring.py): tests that do not load app.py still run
    with the cosigner's policies and actions, the owners' tanks and the engine's owners."""
    from chalicelib.wiring import wire

    wire()


def reset_caches() -> None:
    from chalicelib.platform import clock

    clock.reset()
    cache.reset_all()
    aws.forget_queue_urls()  # clients stay: moto's hook serves any client, and creating them costs ~0.1 s each


# Every resource the service needs, as bootstrap creates and initialises it, once per session; each test starts
# from a deep copy of it (milliseconds, instead of ≈ 0.25 s of API calls per test). moto's objects hold locks,
# which are copied as new locks.
_BOOTSTRAPPED = ("dynamodb", "sqs", "kms", "secretsmanager", "s3")
_bootstrapped: dict[str, dict[str, object]] = {}


def _copy_lock(lock: object) -> tuple[Callable[[], object], tuple[()]]:
    import threading

    return (threading.RLock if type(lock) is type(threading.RLock()) else threading.Lock), ()


def _bootstrap_account() -> None:
    import copy
    import copyreg
    import threading

    from moto.backends import get_backend
    from moto.core import DEFAULT_ACCOUNT_ID

    if not _bootstrapped:
        for lock_type in {type(threading.Lock()), type(threading.RLock())}:
            copyreg.pickle(lock_type, _copy_lock)
        # A condition holds its lock's bound methods: a copy gets a condition of its own (moto's queues wait on one).
        copyreg.pickle(threading.Condition, lambda _condition: (threading.Condition, ()))
        bootstrap.create_resources("test", "us-east-1")
        bootstrap.initialise()
        for service in _BOOTSTRAPPED:
            _bootstrapped[service] = copy.deepcopy(dict(get_backend(service)[DEFAULT_ACCOUNT_ID]))  # type: ignore[arg-type]
        return
    for service, regions in _bootstrapped.items():
        account = get_backend(service)[DEFAULT_ACCOUNT_ID]  # type: ignore[arg-type]
        for region, backend in regions.items():
            account[region] = copy.deepcopy(backend)


@pytest.fixture
def aws_env() -> Iterator[None]:
    reset_caches()
    with mock_aws():
        _bootstrap_account()
        yield
    reset_caches()


@pytest.fixture
def queues_on_the_clock(aws_env: None, monkeypatch: pytest.MonkeyPatch) -> None:
    """moto's queues read the service's clock (platform/clock), so `clock.travel` also makes a delayed message
    visible: a test moves time instead of waiting for it."""
    from datetime import datetime

    from moto.core import utils
    from moto.sqs import models

    from chalicelib.platform import clock

    def unix_time(dt: datetime | None = None) -> float:
        return clock.epoch_s() if dt is None else utils.unix_time(dt)

    monkeypatch.setattr(models, "unix_time", unix_time)
    monkeypatch.setattr(models, "unix_time_millis", lambda dt=None: unix_time(dt) * 1000.0)


@pytest.fixture
def tenant(aws_env: None) -> IssuedCredentials:
    return tenancy.create_tenant("Acme")


@pytest.fixture
def aux_sets(aws_env: None) -> Callable[[int], list[str]]:
    """Put n aux-info sets into the pool (cached, insecure fixture primes; see devtools/aux_cache.py)."""
    from devtools import aux_cache

    return aux_cache.fill_pool


@pytest.fixture
def api(aws_env: None) -> Iterator[object]:
    from chalice.test import Client

    from app import app

    with Client(app) as client:
        yield client.http


@pytest.fixture
def public_dns(monkeypatch: pytest.MonkeyPatch) -> dict[str, list[str]]:
    """Names resolve to what the test says (this machine has no DNS)."""
    answers: dict[str, list[str]] = {
        "hooks.example.com": ["93.184.215.14", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
        "rebind.example.com": ["10.1.2.3"],
        "mixed.example.com": ["93.184.215.14", "192.168.1.1"],  # one bad answer is enough to refuse
    }

    def getaddrinfo(host: str, port: int, *args: object, **kwargs: object) -> list[tuple[object, ...]]:
        if host not in answers:
            raise socket.gaierror("no such host")
        return [
            (socket.AF_INET6 if ":" in ip else socket.AF_INET, socket.SOCK_STREAM, 6, "", (ip, port))
            for ip in answers[host]
        ]

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return answers


@pytest.fixture
def use_networks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Callable[[list[dict] | str], Path]]:
    """Point the service at a networks registry written for the test (entries, or raw file text)."""
    written = 0

    def use(content: list[dict] | str) -> Path:
        nonlocal written
        written += 1
        path = tmp_path / f"networks-{written}.json"
        path.write_text(content if isinstance(content, str) else json.dumps({"networks": content}))
        monkeypatch.setenv("DOMPET_NETWORKS_FILE", str(path))
        settings.load_settings.cache_clear()
        networks.registry.cache_clear()
        return path

    yield use
    # Runs before monkeypatch restores the environment: the next load reads the restored one.
    settings.load_settings.cache_clear()
    networks.registry.cache_clear()


@pytest.fixture
def pool_settings(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """A presignature pool of two per wallet, for the test only."""
    monkeypatch.setenv("DOMPET_PRESIGN_POOL_FLOOR", "2")
    monkeypatch.setenv("DOMPET_PRESIGN_POOL_CEILING", "2")
    settings.load_settings.cache_clear()
    yield
    settings.load_settings.cache_clear()


# The local stack as `make dev` runs it, for the tests that call it over HTTP (tests/integration/test_devstack*.py,
# tests/browser, tests/sdk): started once per session (it makes aux-info sets and deploys two chains);
# test_ctrl_c_stops_everything ends it and runs after every other test (tests/iam_recorder.py orders it).
@pytest.fixture(scope="session")
def stack(tmp_path_factory: pytest.TempPathFactory) -> Iterator[dict[str, object]]:
    import signal
    import subprocess
    import sys
    import time

    from devtools.chain import free_port
    from tests.support.scripts import ROOT

    state = tmp_path_factory.mktemp("stack")
    ports = {"api": free_port(), "moto": free_port(), "chains": [free_port(), free_port()], "btc": free_port()}
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AWS_", "DOMPET_"))}
    # Pools of two per wallet: the suites create many wallets and keys, and every presignature costs CPU they share.
    env.update(DOMPET_PRESIGN_POOL_FLOOR="2", DOMPET_PRESIGN_POOL_CEILING="2")
    # The scheduled aux refill (every 15 minutes) makes real safe primes, a minute of both cores each: in a suite
    # that outlives it, it would compete with the tests and hold up the stack's Ctrl-C. The seeded sets suffice.
    env.update(DOMPET_AUX_POOL_TARGET="0")
    # The engine re-prices a priced-out transaction and fills a lost nonce within seconds here (30 s by default).
    env.update(DOMPET_TX_BUMP_AFTER_S="3", DOMPET_NONCE_GAP_FILL_S="3")
    log = (state / "devstack.out").open("wb")
    process = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "devtools.devstack",
            "--api-port",
            str(ports["api"]),
            "--moto-port",
            str(ports["moto"]),
            "--chain-ports",
            ",".join(map(str, ports["chains"])),
            "--btc-port",
            str(ports["btc"]),
            "--state-dir",
            str(state),
            "--aux-sets",
            "16",  # the wallets and custody keys (EVM and Bitcoin per pool) the suites over HTTP create, and spares
            # No background filler: generating sets (≈ 1.5 cores each) would compete with the suites for CPU; the
            # seeded ones are enough, and the filler has its own tests.
            "--aux-low-water",
            "0",
        ],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    stack_file, out = state / "stack.json", state / "devstack.out"
    # A fresh clone first makes its aux-info sets (≈ 20 s each on two cores), so the wait is measured from the
    # stack's last line of progress, not from its start; a stack that stays silent that long is stuck.
    silent_limit_s, last_size, last_progress = 180.0, -1, time.monotonic()
    while not stack_file.exists():
        if (size := out.stat().st_size) != last_size:
            last_size, last_progress = size, time.monotonic()
        if process.poll() is not None or time.monotonic() - last_progress > silent_limit_s:
            process.kill()
            pytest.fail("local stack did not come up:\n" + out.read_text()[-4000:])
        time.sleep(0.5)
    info = json.loads(stack_file.read_text())
    yield {"info": info, "process": process, "ports": ports, "state": state}
    if process.poll() is None:  # Ctrl-C, as a developer stops it: devstack stops everything it started
        process.send_signal(signal.SIGINT)
        try:
            process.wait(30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
