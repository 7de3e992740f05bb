"""The transport between the parties of one MPC run: a DynamoDB mailbox.

A cggmp21 session cannot be serialised, so every party of a run (the API, the
cosigner or the user party, each in its own function) stays alive for the whole
run and exchanges messages here. cggmp21 requires authenticated messages and
encrypted p2p messages (keygen p2p messages carry secret shares in the clear), so:

* each party of a run makes an ephemeral X25519 key pair and publishes only the
  public key (item `KEY#<party>`);
* every message is sealed for its one recipient with NaCl `Box` (X25519 +
  XSalsa20-Poly1305) between the sender's and the recipient's ephemeral keys; a
  broadcast is sealed once per recipient. A dump of the table therefore shows
  public keys and ciphertexts only, and the private keys die with the run;
* who may publish a key is decided by IAM: only the party functions may write this
  table (docs/security.md discusses what a writer could do).

Items: pk `RUN#<runId>`, sk `KEY#<party>` or `MSG#<to>#<from>#<seq>` (seq counts per sender and
recipient, from 1), `expiresAt` (TTL).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from chalicelib.platform import aws, clock
from chalicelib.platform.logging import logger

if TYPE_CHECKING:
    from dompet_mpc import Session
    from nacl.public import PrivateKey, PublicKey

TTL_S = 600
SEQ_WIDTH = 6


class RunFailedError(Exception):
    """The run cannot finish: a deadline passed, a peer failed, or the protocol aborted."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


@dataclass
class Mailbox:
    run_id: str
    party: int
    peers: tuple[int, ...]
    _private: PrivateKey | None = None
    _peer_keys: dict[int, PublicKey] = field(default_factory=dict)
    _sent: dict[int, int] = field(default_factory=dict)  # last sequence number sent, per recipient
    _next: dict[int, int] = field(default_factory=dict)  # next sequence number expected, per sender

    def open(self) -> None:
        from nacl.public import PrivateKey

        self._private = PrivateKey.generate()
        self._put({"sk": f"KEY#{self.party}", "publicKey": bytes(self._private.public_key)})

    def close(self) -> None:
        self._private = None  # the ephemeral key goes with the run

    def post(self, message: bytes, recipients: list[int], deadline: float, alive: Callable[[], None]) -> None:
        from nacl.public import Box

        assert self._private is not None, "open() the mailbox first"
        for to in recipients:
            box = Box(self._private, self._peer_key(to, deadline, alive))
            seq = self._sent[to] = self._sent.get(to, 0) + 1  # per recipient, so the reader sees no gaps
            self._put({"sk": f"MSG#{to}#{self.party}#{seq:0{SEQ_WIDTH}d}", "box": bytes(box.encrypt(message))})

    def fetch(self) -> list[bytes]:
        """New messages for this party, in each sender's order.

        Each sender's messages are taken strictly in sequence: a later one that is
        already visible while an earlier one is not yet (no snapshot across items)
        waits for the next poll instead of making the earlier one be skipped.
        Messages that fail authentication are dropped.
        """
        import dompet_mpc as mpc
        from nacl.exceptions import CryptoError
        from nacl.public import Box

        assert self._private is not None
        received: list[bytes] = []
        for sender in self.peers:
            key = self._peer_keys.get(sender) or self._load_peer_key(sender)
            if key is None:
                continue  # it has not joined yet, so it has sent nothing
            prefix = f"MSG#{self.party}#{sender}#"
            expected = self._next.get(sender, 1)
            response = aws.table("mpc-mailbox").query(
                KeyConditionExpression="pk = :pk AND sk BETWEEN :from AND :to",
                ExpressionAttributeValues={
                    ":pk": self._pk,
                    ":from": f"{prefix}{expected:0{SEQ_WIDTH}d}",
                    ":to": prefix + "~",
                },
                ConsistentRead=True,
            )
            for item in response.get("Items", []):
                if item["sk"] != f"{prefix}{expected:0{SEQ_WIDTH}d}":
                    break
                expected += 1
                try:
                    message = Box(self._private, key).decrypt(bytes(item["box"]))
                except CryptoError:
                    logger.warning("mailbox message failed authentication", extra={"runId": self.run_id})
                    continue
                try:
                    claimed = mpc.sender(message)
                except mpc.MpcError:
                    claimed = None
                if claimed != sender:  # the envelope's sender must be the authenticated one
                    logger.warning("mailbox message from the wrong sender", extra={"runId": self.run_id})
                    continue
                received.append(message)
            self._next[sender] = expected
        return received

    @property
    def _pk(self) -> str:
        return f"RUN#{self.run_id}"

    def _put(self, item: dict[str, Any]) -> None:
        # A party's key or message is written once.
        written_once = aws.Condition("attribute_not_exists(sk)")
        aws.write(
            aws.put(
                "message", "mpc-mailbox", {"pk": self._pk, **item, "expiresAt": clock.epoch() + TTL_S}, written_once
            )
        )

    def _load_peer_key(self, party: int) -> PublicKey | None:
        from nacl.public import PublicKey

        item = aws.table("mpc-mailbox").get_item(Key={"pk": self._pk, "sk": f"KEY#{party}"}, ConsistentRead=True)
        if "Item" not in item:
            return None
        key = PublicKey(bytes(item["Item"]["publicKey"]))
        self._peer_keys[party] = key
        return key

    def _peer_key(self, party: int, deadline: float, alive: Callable[[], None]) -> PublicKey:
        pause = 0.002
        while (key := self._peer_keys.get(party) or self._load_peer_key(party)) is None:
            alive()
            if clock.monotonic() > deadline:
                raise RunFailedError("peer did not join the run")
            time.sleep(pause)
            pause = min(pause * 2, 0.05)
        return key


def drive(session: Session, mailbox: Mailbox, deadline: float, alive: Callable[[], None] = lambda: None) -> bytes:
    """Run one party's session to the end over the mailbox; returns its result.

    `alive` is called while waiting and raises when a peer is known to have failed,
    so a run stops at once instead of at its deadline.
    """
    import dompet_mpc as mpc

    everyone = (mailbox.party, *mailbox.peers)

    def deliver(messages: list[bytes]) -> None:
        for message in messages:
            to = mpc.recipient(message)
            targets = [to] if to is not None else [p for p in everyone if p != mailbox.party]
            mailbox.post(message, targets, deadline, alive)

    try:
        deliver(session.start())
        pause = 0.002
        while not session.done():
            incoming = mailbox.fetch()
            if incoming:
                pause = 0.002
                for message in incoming:
                    deliver(session.handle(message))
                continue
            alive()
            if clock.monotonic() > deadline:
                raise RunFailedError("deadline passed")
            time.sleep(pause)
            pause = min(pause * 2, 0.025)
        return session.result()
    except mpc.MpcError as exc:
        # Messages carry no secrets, but the text is cggmp21's; log the kind only.
        logger.warning("mpc session failed", extra={"runId": mailbox.run_id, "errorType": type(exc).__name__})
        raise RunFailedError("protocol error") from None
