"""ERC-4337 on the local anvil chains: v0.7 (the canonical EntryPoint and SimpleAccountFactory, a
VerifyingPaymaster) and v0.8 for EIP-7702 accounts (the canonical EntryPoint and Simple7702Account, the service's
GasTankPaymaster), and Alto (Pimlico's bundler) in front of each chain, serving both entry points.

Used by the dev stack (`make dev`) and the integration tests. The contracts come from the
@account-abstraction/contracts 0.7.0 and 0.8.0 (npm alias `contracts-v08`) artifacts, the v0.8 paymaster from
contracts/GasTankPaymaster.sol, and Alto from @pimlico/alto, all in node_modules (`make deps`); web3 is imported
lazily so importing this module stays cheap.
"""

from __future__ import annotations

import atexit
import json
import subprocess
import tempfile
import time
import urllib.error
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any

from devtools.chain import (
    LOCAL_CHAIN_IDS,
    NODE_MODULES,
    ChainError,
    ChildProcess,
    _port_is_free,
    _rpc,
    compile_contracts,
    load_artifact,
)

if TYPE_CHECKING:
    from web3 import Web3
    from web3.types import TxParams

AA_ARTIFACTS = NODE_MODULES / "@account-abstraction" / "contracts" / "artifacts"
AA_ARTIFACTS_V08 = NODE_MODULES / "@account-abstraction" / "contracts-v08" / "artifacts"
ALTO_PACKAGE = NODE_MODULES / "@pimlico" / "alto"

# The canonical v0.7 addresses, the same on every chain: CREATE2 through the deterministic deployer
# (which anvil predeploys) with these salts gives them, as long as the artifacts' bytecode is the
# released one. Wallets, SDKs and bundlers hard-code them, so landing anywhere else is an error.
CREATE2_DEPLOYER = "0x4e59b44847b379578588920ca78fbf26c0b4956c"
ENTRY_POINT = "0x0000000071727De22E5E9d8BAf0edAc6f37da032"
ENTRY_POINT_SALT = bytes.fromhex("90d8084deab30c2a37c45e8d47f49f2f7965183cb6990a98943ef94940681de3")
ACCOUNT_FACTORY = "0x91E60e0613810449d098b0b5Ec8b51A0FE8c8985"
ACCOUNT_FACTORY_SALT = bytes(32)
# v0.8 (0.8.0's deployment salts): bundlers recognise the v0.8 EntryPoint by its address, and Simple7702Account
# names that EntryPoint in its code.
ENTRY_POINT_V08 = "0x4337084D9E255Ff0702461CF8895CE9E3b5Ff108"
ENTRY_POINT_V08_SALT = bytes.fromhex("0a59dbff790c23c976a548690c27297883cc66b4c67024f9117b0238995e35e9")
SIMPLE_7702_ACCOUNT = "0xe6Cae83BdE06E4c305530e199D7217f42808555B"
SIMPLE_7702_ACCOUNT_SALT = bytes(32)
V08_DEPLOY_GAS = 10_000_000  # the EntryPoint takes about 5 M; web3's estimate through the deployer falls short

# Private keys of anvil's default mnemonic accounts ("test test ... junk"), public knowledge.
# Account 0 mints and deploys in the tests and account 1 stands in for the paymaster signer, so the
# bundler gets its own: one sends the bundles (executor), one funds and manages it (utility).
# Sharing an account with anything else would race Alto's own nonce tracking.
ALTO_EXECUTOR_KEY = "0xdbda1821b80551c9d65939329250298aa3472ba22feea921c0cf5d620ea67b97"  # account 8
ALTO_UTILITY_KEY = "0x4bbbf85ce3377467afe5d46f804f221813b2bb87f24d81f60f1fcdbf7cbf4356"  # account 7


def load_aa_artifact(name: str, version: str = "0.7") -> dict[str, Any]:
    """The hardhat artifact ({"abi", "bytecode", ...}) of an @account-abstraction/contracts 0.7.0 (or, with
    `version` "0.8", 0.8.0) contract."""
    path = (AA_ARTIFACTS_V08 if version == "0.8" else AA_ARTIFACTS) / f"{name}.json"
    try:
        artifact: dict[str, Any] = json.loads(path.read_text())
    except FileNotFoundError:
        raise ChainError(f"{path} does not exist: run `make deps`") from None
    return artifact


def _local_web3(rpc_url: str) -> Web3:
    """web3 for rpc_url, refusing chains outside LOCAL_CHAIN_IDS (unlocked accounts, test keys)."""
    from web3 import Web3

    w3 = Web3(Web3.HTTPProvider(rpc_url, request_kwargs={"timeout": 30}))
    chain_id = w3.eth.chain_id
    if chain_id not in LOCAL_CHAIN_IDS:
        raise ChainError(
            f"{rpc_url} is chain {chain_id}; account abstraction contracts are only deployed on local chains "
            f"{LOCAL_CHAIN_IDS.start}..{LOCAL_CHAIN_IDS.stop - 1}"
        )
    return w3


def _wait_success(w3: Web3, tx_hash: bytes, what: str) -> Any:
    receipt = w3.eth.wait_for_transaction_receipt(tx_hash, timeout=30, poll_latency=0.05)  # type: ignore[arg-type]
    if receipt["status"] != 1:
        raise ChainError(f"{what} failed: {dict(receipt)}")
    return receipt


def _create2(w3: Web3, salt: bytes, init_code: bytes, expected: str, what: str, gas: int | None = None) -> str:
    """Deploy init_code through the deterministic deployer unless `expected` already has code."""
    from web3 import Web3

    deployer = Web3.to_checksum_address(CREATE2_DEPLOYER)
    address = Web3.to_checksum_address(
        Web3.keccak(b"\xff" + bytes.fromhex(CREATE2_DEPLOYER[2:]) + salt + Web3.keccak(init_code))[12:]
    )
    # A different address means different bytecode than the released contract: refuse rather than
    # deploy a look-alike the bundler and SDKs would not recognise.
    if address != Web3.to_checksum_address(expected):
        raise ChainError(f"{what} would land on {address}, not the canonical {expected}: unexpected artifact")
    if w3.eth.get_code(address):
        return address  # already deployed (make dev restarted against a running chain, a second call)
    if not w3.eth.get_code(deployer):
        raise ChainError(f"no deterministic deployer at {CREATE2_DEPLOYER} on {w3.provider}")
    tx: TxParams = {"from": w3.eth.accounts[0], "to": deployer, "data": salt + init_code}
    if gas:
        tx["gas"] = gas
    tx_hash = w3.eth.send_transaction(tx)
    _wait_success(w3, tx_hash, f"deploying {what}")
    if not w3.eth.get_code(address):
        raise ChainError(f"deploying {what} succeeded but {address} has no code")
    return address


def deploy_core(rpc_url: str) -> dict[str, str]:
    """Deploy the v0.7 EntryPoint and SimpleAccountFactory, and the v0.8 EntryPoint and Simple7702Account, at their
    canonical addresses.

    Returns {"entryPoint", "accountFactory", "entryPointV08", "eip7702Account"}, checksummed. Idempotent: contracts
    that are already there are kept. Refuses chains outside LOCAL_CHAIN_IDS.
    """
    from eth_abi import encode

    w3 = _local_web3(rpc_url)
    entry_point = _create2(
        w3, ENTRY_POINT_SALT, bytes.fromhex(load_aa_artifact("EntryPoint")["bytecode"][2:]), ENTRY_POINT, "EntryPoint"
    )
    factory_code = bytes.fromhex(load_aa_artifact("SimpleAccountFactory")["bytecode"][2:])
    factory = _create2(
        w3,
        ACCOUNT_FACTORY_SALT,
        factory_code + encode(["address"], [entry_point]),
        ACCOUNT_FACTORY,
        "SimpleAccountFactory",
    )
    entry_point_v08 = _create2(
        w3,
        ENTRY_POINT_V08_SALT,
        bytes.fromhex(load_aa_artifact("EntryPoint", "0.8")["bytecode"][2:]),
        ENTRY_POINT_V08,
        "EntryPoint v0.8",
        V08_DEPLOY_GAS,
    )
    account_7702 = _create2(
        w3,
        SIMPLE_7702_ACCOUNT_SALT,
        bytes.fromhex(load_aa_artifact("Simple7702Account", "0.8")["bytecode"][2:]),
        SIMPLE_7702_ACCOUNT,
        "Simple7702Account",
        V08_DEPLOY_GAS,
    )
    return {
        "entryPoint": entry_point,
        "accountFactory": factory,
        "entryPointV08": entry_point_v08,
        "eip7702Account": account_7702,
    }


def deploy_paymaster(rpc_url: str, verifying_signer: str, deposit_wei: int = 100 * 10**18, version: str = "0.7") -> str:
    """Deploy the paymaster of EntryPoint `version` for verifying_signer (0.7: 0.7.0's VerifyingPaymaster; 0.8:
    contracts/GasTankPaymaster.sol, the same data layout and hash) and deposit deposit_wei for it in that EntryPoint.

    Deployed with a plain transaction from anvil account 0, which becomes its owner (Ownable: the
    owner must be an account that can sign, which the CREATE2 deployer cannot). deploy_core() first.
    Returns the paymaster's checksummed address.
    """
    from web3 import Web3

    w3 = _local_web3(rpc_url)
    entry_point = ENTRY_POINT_V08 if version == "0.8" else ENTRY_POINT
    if not w3.eth.get_code(Web3.to_checksum_address(entry_point)):
        raise ChainError(f"no EntryPoint at {entry_point} on {rpc_url}: run deploy_core() first")
    if version == "0.8":
        compile_contracts()
        artifact = load_artifact("GasTankPaymaster")
    else:
        artifact = load_aa_artifact("VerifyingPaymaster")
    owner = w3.eth.accounts[0]
    factory = w3.eth.contract(abi=artifact["abi"], bytecode=artifact["bytecode"])
    tx_hash = factory.constructor(entry_point, Web3.to_checksum_address(verifying_signer)).transact({"from": owner})
    receipt = _wait_success(w3, tx_hash, f"deploying the v{version} paymaster")
    address = Web3.to_checksum_address(receipt["contractAddress"])
    paymaster = w3.eth.contract(address=address, abi=artifact["abi"])
    if deposit_wei:
        _wait_success(
            w3,
            paymaster.functions.deposit().transact({"from": owner, "value": w3.to_wei(deposit_wei, "wei")}),
            "paymaster deposit",
        )
    return address


def pool_address(rpc_url: str) -> str:
    """The gas-tank pool, where gas-tank top-ups are sent: the last of anvil's accounts (account 9).

    Nothing else on the local chains uses it (tests mint from account 0, the paymaster signer stand-in
    is account 1, Alto uses accounts 7 and 8), so its balance changes only by top-ups.
    """
    from web3 import Web3

    w3 = _local_web3(rpc_url)
    return Web3.to_checksum_address(w3.eth.accounts[-1])


def _alto_command() -> list[str]:
    # Run the package's bin entry with node ourselves rather than through the .bin symlink's shebang,
    # so the command does not depend on which `node` is first on PATH of a shell.
    try:
        package = json.loads((ALTO_PACKAGE / "package.json").read_text())
    except FileNotFoundError:
        raise ChainError(f"@pimlico/alto is not installed in {NODE_MODULES}: run `make deps`") from None
    bin_entry = package["bin"] if isinstance(package["bin"], str) else package["bin"]["alto"]
    return ["node", str(ALTO_PACKAGE / bin_entry)]


class Alto(ChildProcess):
    """A running Alto bundler for ENTRY_POINT and ENTRY_POINT_V08 in front of rpc_url; stop() (or leaving the
    `with` block) ends it.

    Output goes to log_path (appended) if given, otherwise to a temporary file kept only to explain a
    failed start. Alto binds 0.0.0.0; `url` is its loopback address.
    """

    def __init__(self, rpc_url: str, port: int, log_path: Path | None = None, timeout_s: float = 60.0) -> None:
        self.rpc_url = rpc_url
        self.port = port
        self.url = f"http://127.0.0.1:{port}"
        self.log_path = log_path
        # Checked up front: another bundler on the port would answer the readiness check for us.
        if not _port_is_free(port):
            raise ChainError(f"port {port} on 127.0.0.1 is already in use")
        command = [
            *_alto_command(),
            "--entrypoints",
            f"{ENTRY_POINT},{ENTRY_POINT_V08}",
            "--executor-private-keys",
            ALTO_EXECUTOR_KEY,
            "--utility-private-key",  # without one Alto exits at start
            ALTO_UTILITY_KEY,
            "--rpc-url",
            rpc_url,
            "--port",
            str(port),
            "--safe-mode",  # safe mode needs debug_traceCall with Geth's JS tracers, which anvil lacks
            "false",
            # Fast polling and bundling: anvil mines each transaction at once, and tests wait on receipts.
            "--block-time",
            "100",
            "--min-bundle-interval",
            "10",
            "--max-bundle-interval",
            "100",
            # At info every chain call is logged with its full payload (bytecode included), which
            # buries what the bundler itself reports.
            "--public-client-log-level",
            "warn",
        ]
        self._log: IO[bytes]
        if log_path is None:
            self._log = tempfile.TemporaryFile(mode="a+b")  # noqa: SIM115 - closed in stop()
        else:
            log_path.parent.mkdir(parents=True, exist_ok=True)
            self._log = log_path.open("a+b")
        # A session of its own, as chain.Anvil: a terminal's Ctrl-C reaches only the owner, which
        # decides the shutdown order, and stop() can signal the whole group.
        self._process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            cwd=NODE_MODULES.parent,
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
                    f"alto on port {self.port} exited with {self._process.returncode} before answering:\n"
                    + self.log_tail()
                )
            try:
                entry_points = _rpc(self.url, "eth_supportedEntryPoints")
            except (urllib.error.URLError, ConnectionError, TimeoutError, KeyError, ValueError):
                entry_points = None  # not listening yet, or not answering JSON-RPC yet
            if entry_points is not None:
                if {ENTRY_POINT.lower(), ENTRY_POINT_V08.lower()} <= {e.lower() for e in entry_points}:
                    return
                raise ChainError(f"{self.url} supports entry points {entry_points}, not {ENTRY_POINT} and v0.8's")
            if time.monotonic() > deadline:
                raise ChainError(f"alto at {self.url} did not answer within {timeout_s:.0f} s:\n{self.log_tail()}")
            time.sleep(0.1)

    def running(self) -> bool:
        """Whether the Alto process is still alive."""
        return self._process.poll() is None

    def __repr__(self) -> str:
        return f"Alto(url={self.url!r}, rpc_url={self.rpc_url!r})"


def start_alto(rpc_url: str, port: int, log_path: Path | None = None) -> Alto:
    """Start Alto for rpc_url and return once it answers eth_supportedEntryPoints with both entry points."""
    return Alto(rpc_url, port, log_path)
