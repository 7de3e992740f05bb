"""What the user-operation tracker reads from a network, behind one small interface (`ChainReader`), so its
decisions can be tested against a stand-in without a node or a bundler.

`NETWORK` reads the real network: the bundler's receipt, the chain's verdict and whether the chain holds the
operation (inclusion.py). A read that gets no answer (a node or bundler that refuses, is unreachable or answers
nonsense) is ChainUnavailableError: no verdict, the tracker looks again later.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar

from chalicelib.evm.logs import LogsUnavailableError
from chalicelib.evm.rpc import NO_ANSWER, RpcError, rpc_call
from chalicelib.platform.networks import Network
from chalicelib.user_ops import inclusion
from chalicelib.user_ops.inclusion import Receipt, Verdict
from chalicelib.user_ops.models import UserOpRecord

T = TypeVar("T")
# How a read fails to get an answer: no endpoint reachable or the budget spent, a node's refusal, a node that cannot
# serve the logs, an answer of the wrong shape.
_UNANSWERED = (*NO_ANSWER, RpcError, LogsUnavailableError, ValueError)


class ChainUnavailableError(Exception):
    """The node or the bundler could not answer: no verdict."""


class ChainReader(Protocol):
    def receipt(self, network: Network, op: UserOpRecord) -> Receipt | None:
        """The bundler's receipt of the operation; None while it has none."""
        ...

    def verdict(self, network: Network, op: UserOpRecord) -> Verdict:
        """The chain's word: included (with its outcome), proven never included, or undecided."""
        ...

    def included(self, network: Network, op: UserOpRecord) -> Receipt | None:
        """The operation's outcome if the chain holds it up to the head."""
        ...


class _Network:
    def receipt(self, network: Network, op: UserOpRecord) -> Receipt | None:
        def read() -> Receipt | None:
            answer = rpc_call(network, "eth_getUserOperationReceipt", [op.userOpHash], bundler=True)
            return Receipt.from_bundler(answer) if isinstance(answer, dict) else None

        return _answered(read)

    def verdict(self, network: Network, op: UserOpRecord) -> Verdict:
        return _answered(lambda: inclusion.verdict(network, op))

    def included(self, network: Network, op: UserOpRecord) -> Receipt | None:
        return _answered(lambda: inclusion.included(network, op))


NETWORK: ChainReader = _Network()


def _answered(read: Callable[[], T]) -> T:
    try:
        return read()
    except _UNANSWERED as exc:
        raise ChainUnavailableError(str(exc)[:300]) from exc
