"""Local EVM test chains: anvil processes and the open-mint test contracts on them.

Used by the dev stack (`make dev`) and the integration tests. anvil and solc come from
node_modules (`make deps`); web3 is imported lazily so importing this module stays cheap.
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import platform
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request
from pathlib import Path
from types import TracebackType
from typing import IO, Any, Self

ROOT = Path(__file__).resolve().parents[1]
NODE_MODULES = ROOT / "node_modules"
BUILD_DIR = ROOT / "build" / "contracts"

# Chain ids the open-mint contracts may be deployed on; their constructors enforce the same range.
LOCAL_CHAIN_IDS = range(31337, 31400)

# deploy_test_contracts() result key -> contract name (contracts/<Name>.sol, build/contracts/<Name>.json).
# Deployed in this order; new entries go last so the earlier ones keep their addresses.
TEST_CONTRACTS = {
    "usdt": "TestUSDT",
    "erc20": "TestToken",
    "erc721": "TestNFT",
    "erc1155": "TestMultiToken",
    "usdt18": "TestUSDT18",  # 18 decimals, as USDT on BSC
    "permit": "TestPermitToken",  # EIP-2612 permit, for signed approvals
}


class ChainError(RuntimeError):
    """The local chain tooling could not do what was asked (missing deps, anvil down, wrong chain)."""


def free_port() -> int:
    """A TCP port that is free on 127.0.0.1 right now (another process may still take it before use)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


def _port_is_free(port: int) -> bool:
    with socket.socket() as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # TIME_WAIT leftovers do not count
        try:
            s.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def compile_contracts() -> Path:
    """Compile contracts/*.sol into build/contracts/<Name>.json (a no-op when nothing changed)."""
    if not (NODE_MODULES / "solc").is_dir() or not (NODE_MODULES / "@openzeppelin" / "contracts").is_dir():
        raise ChainError(f"{NODE_MODULES} is missing solc or @openzeppelin/contracts: run `make deps`")
    result = subprocess.run(
        ["node", "devtools/compile_contracts.mjs"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    if result.returncode != 0:
        raise ChainError(f"compiling contracts failed (exit {result.returncode}):\n{result.stderr}{result.stdout}")
    return BUILD_DIR


def load_artifact(name: str) -> dict[str, Any]:
    """{"abi": [...], "bytecode": "0x..."} of a compiled contract; run compile_contracts() first."""
    path = BUILD_DIR / f"{name}.json"
    try:
        artifact: dict[str, Any] = json.loads(path.read_text())
    except FileNotFoundError:
        raise ChainError(f"{path} does not exist: run compile_contracts() first") from None
    return artifact


def _anvil_command() -> list[str]:
    # Prefer the native binary from the platform package over node_modules/.bin/anvil: that is a
    # node wrapper which spawns anvil as a grandchild, so stopping the wrapper can orphan anvil.
    arch = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64"}.get(platform.machine().lower())
    native = NODE_MODULES / "@foundry-rs" / f"anvil-{sys.platform}-{arch}" / "bin" / "anvil"
    if native.is_file():
        return [str(native)]
    wrapper = NODE_MODULES / ".bin" / "anvil"
    if wrapper.exists():
        return [str(wrapper)]
    raise ChainError(f"anvil is not installed in {NODE_MODULES}: run `make deps`")


class ChildProcess:
    """A process this one started in its own process group, its output appended to `_log`: what the local
    chain, bundler and Bitcoin node have in common (their end, their log, `with`)."""

    _process: subprocess.Popen[bytes]
    _log: IO[bytes]
    _stopped: bool

    @property
    def pid(self) -> int:
        return self._process.pid

    def stop(self, timeout_s: float = 5.0) -> None:
        """Terminate the process (SIGTERM, then SIGKILL after timeout_s) and reap it. Idempotent."""
        if self._stopped:
            return
        self._stopped = True
        atexit.unregister(self.stop)
        self._end(timeout_s)

    def log_tail(self, max_bytes: int = 4000) -> str:
        """The end of the process's output, for error messages."""
        if self._log.closed:
            return ""
        fd = self._log.fileno()
        size = os.fstat(fd).st_size
        # pread leaves the file offset alone; the process shares this open file.
        return os.pread(fd, max_bytes, max(0, size - max_bytes)).decode(errors="replace")

    def _end(self, timeout_s: float, first: signal.Signals | None = signal.SIGTERM) -> None:
        """Signal the group `first` (None: the process was asked to stop another way), SIGKILL it after timeout_s,
        reap the process, SIGKILL whatever is left in its group, and close the log."""
        if first is not None:
            self._signal_group(first)
        try:
            self._process.wait(timeout=timeout_s)
        except subprocess.TimeoutExpired:
            self._signal_group(signal.SIGKILL)
            self._process.wait()
        self._signal_group(signal.SIGKILL)  # e.g. a wrapper's child, which we cannot wait for
        self._log.close()

    def _signal_group(self, sig: signal.Signals) -> None:
        with contextlib.suppress(ProcessLookupError):  # the group is already gone
            os.killpg(self._process.pid, sig)

    def __enter__(self) -> Self:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        self.stop()


class Anvil(ChildProcess):
    """A running anvil on 127.0.0.1; stop() (or leaving the `with` block) ends it.

    Output goes to log_path (appended) if given; otherwise anvil runs with --quiet into a temporary
    file, kept only to explain a failed start.
    """

    def __init__(self, port: int, chain_id: int, log_path: Path | None = None, timeout_s: float = 30.0) -> None:
        self.port = port
        self.chain_id = chain_id
        self.rpc_url = f"http://127.0.0.1:{port}"
        self.log_path = log_path
        # Checked up front: if another anvil with the same chain id holds the port, it would answer
        # the readiness check and hide that ours failed to start.
        if not _port_is_free(port):
            raise ChainError(f"port {port} on 127.0.0.1 is already in use")
        command = [*_anvil_command(), "--host", "127.0.0.1", "--port", str(port), "--chain-id", str(chain_id)]
        self._log: IO[bytes]
        if log_path is None:
            command.append("--quiet")
            self._log = tempfile.TemporaryFile(mode="a+b")  # noqa: SIM115 - closed in stop()
        else:
            log_path.parent.mkdir(parents=True, exist_ok=True)
            self._log = log_path.open("a+b")
        # A session of its own: a terminal's Ctrl-C reaches only us, so the owner decides the shutdown
        # order, and stop() can signal the whole group (which covers the .bin wrapper's child too).
        self._process = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=self._log, stderr=subprocess.STDOUT, start_new_session=True
        )
        self._stopped = False
        atexit.register(self.stop)  # a safety net for owners that exit without stopping us
        try:
            self._wait_ready(timeout_s)
        except BaseException:
            self.stop()
            raise

    def _wait_ready(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while True:
            if self._process.poll() is not None:
                raise ChainError(
                    f"anvil on port {self.port} exited with {self._process.returncode} before answering:\n"
                    + self.log_tail()
                )
            try:
                answered = int(_rpc(self.rpc_url, "eth_chainId"), 16)
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                answered = None
            if answered == self.chain_id:
                return
            if answered is not None:  # something else already listens on this port
                raise ChainError(f"{self.rpc_url} answers with chain id {answered}, expected {self.chain_id}")
            if time.monotonic() > deadline:
                raise ChainError(f"anvil at {self.rpc_url} did not answer within {timeout_s:.0f} s:\n{self.log_tail()}")
            time.sleep(0.05)

    def __repr__(self) -> str:
        return f"Anvil(rpc_url={self.rpc_url!r}, chain_id={self.chain_id})"


def start_anvil(port: int, chain_id: int, log_path: Path | None = None) -> Anvil:
    """Start anvil and return once it answers eth_chainId with chain_id."""
    return Anvil(port, chain_id, log_path)


def _rpc(url: str, method: str, params: list[Any] | None = None) -> Any:
    body = json.dumps({"jsonrpc": "2.0", "id": 1, "method": method, "params": params or []}).encode()
    # S310: the URL is our own http://127.0.0.1 one.
    request = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})  # noqa: S310
    with urllib.request.urlopen(request, timeout=5) as response:  # noqa: S310
        return json.loads(response.read())["result"]


def deploy_test_contracts(rpc_url: str) -> dict[str, str]:
    """Deploy the test contracts from one of anvil's unlocked accounts.

    Each chain id deploys from a different account, so the same contract gets a different
    address on each local chain and a token address used on the wrong network shows up.

    Returns checksummed addresses keyed like TEST_CONTRACTS. Refuses chains outside LOCAL_CHAIN_IDS:
    anyone can mint these tokens.
    """
    from web3 import Web3

    w3 = Web3(Web3.HTTPProvider(rpc_url, request_kwargs={"timeout": 30}))
    chain_id = w3.eth.chain_id
    if chain_id not in LOCAL_CHAIN_IDS:
        raise ChainError(
            f"{rpc_url} is chain {chain_id}; test contracts are only deployed on local chains "
            f"{LOCAL_CHAIN_IDS.start}..{LOCAL_CHAIN_IDS.stop - 1}"
        )
    compile_contracts()
    accounts = w3.eth.accounts
    deployer = accounts[(chain_id - LOCAL_CHAIN_IDS.start) % len(accounts)]
    # Send all, then wait: anvil mines each transaction as it arrives and assigns the nonces.
    tx_hashes = {}
    for key, name in TEST_CONTRACTS.items():
        artifact = load_artifact(name)
        contract = w3.eth.contract(abi=artifact["abi"], bytecode=artifact["bytecode"])
        tx_hashes[key] = contract.constructor().transact({"from": deployer})
    addresses: dict[str, str] = {}
    for key, tx_hash in tx_hashes.items():
        receipt = w3.eth.wait_for_transaction_receipt(tx_hash, timeout=30, poll_latency=0.05)
        if receipt["status"] != 1 or not receipt["contractAddress"]:
            raise ChainError(f"deploying {TEST_CONTRACTS[key]} on {rpc_url} failed: {dict(receipt)}")
        addresses[key] = Web3.to_checksum_address(receipt["contractAddress"])
    return addresses
