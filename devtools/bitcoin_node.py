"""A local Bitcoin node: btcd in regtest, for the dev stack (`make dev`) and the integration tests.

btcd and btcctl are built from source with Go (pinned to BTCD_VERSION) into .local/bin (`make deps`, or the first
ensure_btcd()). The node mines on request (`generate`) to a fixed, publicly known regtest key, MINER_WIF, whose
coinbase outputs fund() spends: test tooling only, like anvil's funded accounts. btcd wipes its regtest chain on
every start, so each Btcd begins at the genesis block.
"""

from __future__ import annotations

import atexit
import base64
import contextlib
import fcntl
import hashlib
import json
import os
import pwd
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import IO, Any

from embit import ec, script
from embit.networks import NETWORKS
from embit.script import Script
from embit.transaction import SIGHASH, Transaction, TransactionInput, TransactionOutput

from devtools.chain import ChainError, ChildProcess, _port_is_free, free_port

ROOT = Path(__file__).resolve().parents[1]
BIN_DIR = ROOT / ".local" / "bin"
BTCD_MODULE = "github.com/btcsuite/btcd"
BTCD_VERSION = "v0.24.2"
_STAMP = BIN_DIR / "btcd.version"

REGTEST = NETWORKS["regtest"]
# Regtest deploys SegWit by BIP 9 in 144-block windows: started at 144, locked in at 288, active from block 432.
SEGWIT_HEIGHT = 432
COINBASE_MATURITY = 100
# Sat per input a fund() transaction pays: 1000 sat for one input and two outputs is above 4 sat/vB.
FUND_FEE_PER_INPUT = 1000
_P2PKH_DUST = 546

# The miner's key is public on purpose (the sha256 of a fixed phrase): anyone may spend what it holds, on regtest.
MINER_SECRET = hashlib.sha256(b"dompet regtest miner").digest()
_MINER_KEY = ec.PrivateKey(MINER_SECRET)
_MINER_SCRIPT = script.p2pkh(_MINER_KEY.get_public_key())
MINER_WIF: str = _MINER_KEY.wif(REGTEST)
MINER_ADDRESS: str = _MINER_SCRIPT.address(REGTEST)


class BtcdRpcError(ChainError):
    """btcd answered a JSON-RPC call with an error (it does so with HTTP 200)."""

    def __init__(self, method: str, code: int, message: str) -> None:
        super().__init__(f"btcd {method}: {message} (code {code})")
        self.method = method
        self.code = code
        self.message = message


def ensure_btcd() -> Path:
    """The path of the pinned btcd (btcctl beside it), built with `go install` when missing or of another version."""
    btcd, btcctl = BIN_DIR / "btcd", BIN_DIR / "btcctl"
    BIN_DIR.mkdir(parents=True, exist_ok=True)
    # One build at a time: the dev stack and a test session may both find the binaries missing.
    with (BIN_DIR / ".btcd.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if btcd.is_file() and btcctl.is_file() and _stamp() == BTCD_VERSION:
            return btcd
        go = shutil.which("go")
        if go is None:
            raise ChainError(
                "go is not installed: btcd (the local Bitcoin node) is built from source with Go >= 1.22 "
                "(https://go.dev/doc/install); then run `make deps`"
            )
        print(f"[dompet] building btcd {BTCD_VERSION} into {BIN_DIR} (a minute or two, once)", file=sys.stderr)
        _STAMP.unlink(missing_ok=True)
        result = subprocess.run(
            [go, "install", f"{BTCD_MODULE}@{BTCD_VERSION}", f"{BTCD_MODULE}/cmd/btcctl@{BTCD_VERSION}"],
            env={**os.environ, "GOBIN": str(BIN_DIR)},
            capture_output=True,
            text=True,
            check=False,
        )
        if result.returncode != 0 or not btcd.is_file() or not btcctl.is_file():
            raise ChainError(f"building btcd {BTCD_VERSION} failed (exit {result.returncode}):\n{result.stderr}")
        _STAMP.write_text(BTCD_VERSION + "\n")
        return btcd


def _stamp() -> str | None:
    try:
        return _STAMP.read_text().strip()
    except FileNotFoundError:
        return None


class BtcdClient:
    """JSON-RPC to a btcd in regtest (one this process started, or the local stack's, from `.local/stack.json`), and
    payments from the miner's mature coinbases (the chain's well-known funding key)."""

    def __init__(self, rpc_url: str, rpc_user: str, rpc_password: str) -> None:
        self.rpc_url = rpc_url
        self.rpc_user = rpc_user
        self.rpc_password = rpc_password
        self._auth = "Basic " + base64.b64encode(f"{rpc_user}:{rpc_password}".encode()).decode()
        self._fund_lock = threading.Lock()
        self._next_coinbase_height = 1

    def rpc(self, method: str, *params: Any, timeout_s: float = 60) -> Any:
        """A JSON-RPC call (positional parameters: btcd takes no named ones); errors raise BtcdRpcError."""
        body = json.dumps({"jsonrpc": "1.0", "id": 1, "method": method, "params": list(params)}).encode()
        headers = {"Authorization": self._auth, "Content-Type": "application/json"}
        request = urllib.request.Request(self.rpc_url, data=body, headers=headers)  # noqa: S310 - our loopback URL
        try:
            with urllib.request.urlopen(request, timeout=timeout_s) as response:  # noqa: S310
                answer = json.loads(response.read())
        except urllib.error.HTTPError as exc:  # 401 and the like; some errors also come with a JSON body
            text = exc.read().decode(errors="replace")
            try:
                answer = json.loads(text)
            except json.JSONDecodeError:
                raise BtcdRpcError(method, exc.code, f"HTTP {exc.code}: {text.strip()[:200]}") from None
        if not isinstance(answer, dict):
            raise BtcdRpcError(method, 0, f"not a JSON-RPC answer: {str(answer)[:200]}")
        error = answer.get("error")
        if error:
            raise BtcdRpcError(method, int(error.get("code", 0)), str(error.get("message", error)))
        return answer.get("result")

    def height(self) -> int:
        return int(self.rpc("getblockcount"))

    def generate(self, blocks: int) -> list[str]:
        """Mine blocks (to MINER_ADDRESS) on top of the tip; their hashes."""
        hashes: list[str] = self.rpc("generate", blocks, timeout_s=60 + blocks)
        return hashes

    def segwit_status(self) -> str:
        """The BIP 9 status btcd reports for SegWit ("defined", "started", "lockedin", "active")."""
        return str(self.rpc("getblockchaininfo")["bip9_softforks"]["segwit"]["status"])

    def mine_until_segwit(self) -> int:
        """Mine until SegWit is active and the first coinbases are mature; the height reached."""
        height = self.height()
        if height < SEGWIT_HEIGHT:
            self.generate(SEGWIT_HEIGHT - height)
            height = self.height()
        status = self.segwit_status()
        if status != "active":
            raise ChainError(f"btcd at height {height}: SegWit is {status!r}, expected 'active'")
        first = self.rpc("gettxout", self._coinbase_txid(1), 0, True)
        if first is None or int(first["confirmations"]) < COINBASE_MATURITY:
            raise ChainError(f"btcd at height {height}: the coinbase of block 1 is not mature: {first}")
        return height

    def fund(self, address: str, sats: int) -> str:
        """Pay sats to a regtest address from the miner's mature coinbases (change back to the miner); the txid.

        The transaction is sent, not mined: generate(1) confirms it. Coinbases already spent, in a block or in
        the mempool, are skipped, so calls in a row do not conflict.
        """
        return self.pay([(address, sats)])

    def pay(self, payments: list[tuple[str, int]]) -> str:
        """One transaction with an output per (regtest address, sats), in that order (as fund())."""
        if not payments or any(sats <= 0 for _, sats in payments):
            raise ChainError(f"pay: {payments} has no outputs or an amount that is not positive")
        sats = sum(value for _, value in payments)
        destinations = [TransactionOutput(value, _regtest_script(address)) for address, value in payments]
        with self._fund_lock:
            first_height = self._next_coinbase_height
            inputs: list[tuple[str, int]] = []  # (coinbase txid, sats)
            while sum(value for _, value in inputs) < sats + FUND_FEE_PER_INPUT * max(1, len(inputs)):
                inputs.append(self._next_coinbase())
            fee = FUND_FEE_PER_INPUT * len(inputs)
            change = sum(value for _, value in inputs) - sats - fee
            outputs = list(destinations)
            if change >= _P2PKH_DUST:
                outputs.append(TransactionOutput(change, _MINER_SCRIPT))
            tx = Transaction(
                version=2,
                vin=[TransactionInput(bytes.fromhex(txid), 0) for txid, _ in inputs],
                vout=outputs,
            )
            public_key = _MINER_KEY.get_public_key().sec()
            for index in range(len(inputs)):
                digest = tx.sighash_legacy(index, _MINER_SCRIPT, SIGHASH.ALL)
                signature = _MINER_KEY.sign(digest).serialize() + bytes([SIGHASH.ALL])
                script_sig = Script()
                script_sig.push(signature)
                script_sig.push(public_key)
                tx.vin[index].script_sig = script_sig
            try:
                txid: str = self.rpc("sendrawtransaction", tx.serialize().hex())
            except BaseException:
                self._next_coinbase_height = first_height  # the inputs are still unspent: offer them again
                raise
            return txid

    def _next_coinbase(self) -> tuple[str, int]:
        """(txid, sats) of the next mature coinbase paying the miner that nothing, not even the mempool, spends."""
        tip = self.height()
        while self._next_coinbase_height <= tip - COINBASE_MATURITY + 1:
            height = self._next_coinbase_height
            self._next_coinbase_height += 1
            txid = self._coinbase_txid(height)
            output = self.rpc("gettxout", txid, 0, True)
            if output is not None and output["scriptPubKey"]["hex"] == _MINER_SCRIPT.data.hex():
                return txid, round(output["value"] * 100_000_000)
        raise ChainError(f"no mature coinbase left to fund from at height {tip}: generate more blocks")

    def _coinbase_txid(self, height: int) -> str:
        block = self.rpc("getblock", self.rpc("getblockhash", height), 1)
        return str(block["tx"][0])


class Btcd(BtcdClient, ChildProcess):
    """A running btcd in regtest on 127.0.0.1; stop() (or leaving the `with` block) ends it.

    Its chain (wiped by btcd at every start) and btcd's own log live in state_dir, a temporary directory
    (removed at stop) unless given. btcd's output goes to log_path (appended) if given, otherwise to a temporary
    file kept to explain a failure. The RPC credentials are generated per node.
    """

    def __init__(
        self,
        rpc_port: int,
        p2p_port: int | None = None,
        state_dir: Path | None = None,
        log_path: Path | None = None,
        timeout_s: float = 30.0,
    ) -> None:
        binary = ensure_btcd()
        p2p_port = free_port() if p2p_port is None else p2p_port
        for port in (rpc_port, p2p_port):
            if not _port_is_free(port):  # another node there would answer the readiness check
                raise ChainError(f"port {port} on 127.0.0.1 is already in use")
        super().__init__(f"http://127.0.0.1:{rpc_port}", "dompet-" + secrets.token_hex(4), secrets.token_urlsafe(24))
        self.rpc_port = rpc_port
        self.p2p_port = p2p_port
        self._own_state_dir = state_dir is None
        self.state_dir = Path(tempfile.mkdtemp(prefix="btcd-")) if state_dir is None else state_dir
        self.state_dir.mkdir(parents=True, exist_ok=True)
        config = self.state_dir / "btcd.conf"
        config.touch()
        command = [
            str(binary),
            "--regtest",
            "--notls",
            f"--configfile={config}",
            f"--datadir={self.state_dir / 'data'}",
            f"--logdir={self.state_dir / 'logs'}",
            f"--rpclisten=127.0.0.1:{rpc_port}",
            f"--listen=127.0.0.1:{p2p_port}",
            f"--rpcuser={self.rpc_user}",
            f"--rpcpass={self.rpc_password}",
            "--rejectnonstd",
            "--txindex",
            "--addrindex",
            f"--miningaddr={MINER_ADDRESS}",
        ]
        self._log: IO[bytes]
        if log_path is None:
            self._log = tempfile.TemporaryFile(mode="a+b")  # noqa: SIM115 - closed in stop()
        else:
            log_path.parent.mkdir(parents=True, exist_ok=True)
            self._log = log_path.open("a+b")
        # btcd creates an empty ~/.btcd (the passwd entry's home, not $HOME) even when told every path.
        home_dir = Path(pwd.getpwuid(os.getuid()).pw_dir) / ".btcd"
        home_dir_existed = home_dir.exists()
        self._process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=self._log,
            stderr=subprocess.STDOUT,
            start_new_session=True,  # Ctrl-C in a terminal reaches only the owner, which decides the order
        )
        self._stopped = False
        self._timer: threading.Thread | None = None
        self._timer_stop = threading.Event()
        atexit.register(self.stop)  # a safety net for owners that exit without stopping us
        try:
            self._wait_ready(timeout_s)
        except BaseException:
            self.stop()
            raise
        if not home_dir_existed:
            with contextlib.suppress(OSError):  # not empty, or another node's: leave it
                home_dir.rmdir()

    def _wait_ready(self, timeout_s: float) -> None:
        deadline = time.monotonic() + timeout_s
        while True:
            if self._process.poll() is not None:
                raise ChainError(
                    f"btcd on port {self.rpc_port} exited with {self._process.returncode} before answering:\n"
                    + self.log_tail()
                )
            try:
                self.rpc("getblockcount", timeout_s=2)
                return
            except (urllib.error.URLError, ConnectionError, TimeoutError):
                pass
            if time.monotonic() > deadline:
                raise ChainError(f"btcd at {self.rpc_url} did not answer within {timeout_s:.0f} s:\n{self.log_tail()}")
            time.sleep(0.05)

    def mine_every(self, interval_s: float) -> None:
        """Mine one block every interval_s seconds on a thread of its own, until stop()."""
        if interval_s <= 0 or self._timer is not None:
            return

        def run() -> None:
            while not self._timer_stop.wait(interval_s):
                try:
                    self.generate(1)
                except (ChainError, OSError) as exc:  # a node that is going away; say it and keep the beat
                    if not self._timer_stop.is_set():
                        print(f"[dompet] btcd block timer: {exc}", file=sys.stderr, flush=True)

        self._timer = threading.Thread(target=run, name="btcd-block-timer", daemon=True)
        self._timer.start()

    def stop(self, timeout_s: float = 10.0) -> None:
        """Stop btcd (the `stop` RPC, else SIGTERM; SIGKILL after timeout_s) and reap it. Idempotent."""
        if self._stopped:
            return
        self._stopped = True
        atexit.unregister(self.stop)
        self._timer_stop.set()
        if self._timer is not None:
            self._timer.join()
        first: signal.Signals | None = signal.SIGTERM
        if self._process.poll() is None:
            with contextlib.suppress(ChainError, OSError):  # not answering: the signal instead
                self.rpc("stop", timeout_s=2)
                first = None
        self._end(timeout_s, first)
        if self._own_state_dir:
            shutil.rmtree(self.state_dir, ignore_errors=True)

    def __repr__(self) -> str:
        return f"Btcd(rpc_url={self.rpc_url!r})"


def _regtest_script(address: str) -> Script:
    """The output script paying a regtest address; refuses addresses of other networks and malformed ones."""
    try:
        spk = script.address_to_scriptpubkey(address)
        # embit decodes any network's address: the round trip tells whether it was a regtest one.
        valid = spk.address(REGTEST) == address
    except Exception:  # noqa: BLE001 - embit raises several kinds for a malformed address
        valid = False
    if not valid:
        raise ChainError(f"fund: {address!r} is not a regtest address")
    return spk


if __name__ == "__main__":
    # `make deps`: build the pinned binaries when missing.
    print(ensure_btcd())
