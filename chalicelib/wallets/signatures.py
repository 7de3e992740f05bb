"""Message signatures of the caller's MPC wallet: EIP-191 personal messages, EIP-712 typed data and EIP-7702
authorizations.

The parties are shown the message or the document itself (evm/digests.py), never a digest, and each hashes it on
its own; there is no way to have a caller's 32 bytes signed. Everything the caller sent is checked here first
(hex, size, the typed data's types and values), so a malformed body is a 400 that never reaches a party.

A signature is recorded in the wallet's history (history.py) after it is made and before it is answered, in ONE
transaction with the signing run's audit record (mpc/service.py): a signature the caller holds is always listed and
audited. A function that dies before that write has answered nothing, so the caller holds no signature; both
parties' records of the presignature it used (or the failed run's audit record) still have its digest.
"""

from __future__ import annotations

import re

from chalicelib.auth.models import WalletPrincipal
from chalicelib.evm import digests, typed_data
from chalicelib.evm.rpc import RpcError, transaction_count
from chalicelib.evm.signatures import with_v27
from chalicelib.evm.transactions import SignedAuthorization
from chalicelib.platform.addresses import checksum_address
from chalicelib.platform.errors import UPSTREAM_UNAVAILABLE, ApiError, bad_request
from chalicelib.platform.networks import NETWORK_MISMATCH, Network, resolve
from chalicelib.wallets import history, provisioning
from chalicelib.wallets.models import (
    MAX_MESSAGE_BYTES,
    AuthorizationSignature,
    MessageSignature,
    SignAuthorizationRequest,
    SignMessageRequest,
    SignTypedDataRequest,
    TypedDataSignature,
)
from chalicelib.wallets.store import BoundWallet

INVALID_MESSAGE = "INVALID_MESSAGE"
NONCE_REQUIRED = "NONCE_REQUIRED"
MESSAGE_TOO_LARGE = "MESSAGE_TOO_LARGE"
_HEX_BYTES = re.compile(r"0x(?:[0-9a-fA-F]{2})*")


def sign_message(principal: WalletPrincipal, request: SignMessageRequest) -> MessageSignature:
    payload = digests.personal_message(message_bytes(request.message, request.encoding))
    digest = digests.digest_of(payload)
    wallet = _wallet(principal, request.secret)
    record = history.signature_record(wallet.walletId, "personal_message", digest)
    signature = provisioning.sign(principal, payload, request.secret, wallet, record)
    return MessageSignature(signature=_hex(with_v27(signature)), address=wallet.address, messageHash=_hex(digest))


def sign_typed_data(principal: WalletPrincipal, request: SignTypedDataRequest) -> TypedDataSignature:
    document = request.typedData
    try:
        hashes = typed_data.hashes(document)
        domain = typed_data.domain_fields(document)
    except typed_data.TypedDataError as exc:
        raise bad_request(exc.code, exc.message, errors=[_field(exc.field, exc.message, "typed_data")]) from None
    wallet = _wallet(principal, request.secret)
    record = history.signature_record(
        wallet.walletId,
        "typed_data",
        hashes.digest,
        primary_type=domain["primaryType"],
        chain_id=domain["chainId"],
        verifying_contract=domain["verifyingContract"],
    )
    signature = provisioning.sign(principal, digests.typed_data(document), request.secret, wallet, record)
    return TypedDataSignature(
        signature=_hex(with_v27(signature)),
        address=wallet.address,
        hash=_hex(hashes.digest),
        domainSeparator=_hex(hashes.domain_separator),
    )


def sign_authorization(principal: WalletPrincipal, request: SignAuthorizationRequest) -> AuthorizationSignature:
    """An EIP-7702 authorization of `contractAddress` at the wallet's nonce, decided by the cosigner's policies (it
    hashes the tuple itself) and listed with the wallet's signatures."""
    delegate = checksum_address(request.contractAddress, "contractAddress")
    chain_id, network = _authorization_chain(request)
    wallet = _wallet(principal, request.secret)
    nonce = request.nonce
    if nonce is None:
        assert network is not None  # any chain needs its nonce (_authorization_chain)
        try:
            nonce = transaction_count(network, wallet.address, "pending")
        except RpcError:
            raise ApiError(502, UPSTREAM_UNAVAILABLE, f"The node of {network.name} did not return the nonce") from None
    signed = signed_authorization(principal, wallet, request.secret, chain_id, delegate, nonce)
    return AuthorizationSignature(**signed.wire(), hash=_hex(digests.authorization_hash(chain_id, delegate, nonce)))


def signed_authorization(
    principal: WalletPrincipal, wallet: BoundWallet, secret: str | None, chain_id: int, delegate: str, nonce: int
) -> SignedAuthorization:
    """The wallet's authorization of `delegate` (checksummed) on `chain_id` at `nonce`, signed under the cosigner's
    policies and listed with the wallet's signatures."""
    payload = digests.authorization(chain_id, delegate, nonce)
    digest = digests.digest_of(payload)
    record = history.signature_record(
        wallet.walletId, "authorization", digest, chain_id=chain_id, contract_address=delegate
    )
    signature = provisioning.sign(principal, payload, secret, wallet, record)
    r, s = int.from_bytes(signature[:32], "big"), int.from_bytes(signature[32:64], "big")
    return SignedAuthorization(chain_id, delegate, nonce, signature[64], r, s)


def _authorization_chain(request: SignAuthorizationRequest) -> tuple[int, Network | None]:
    """The chain id an authorization names and its network (none for chain id 0, any chain)."""
    if request.chainId == "0":
        if request.network:
            reason = 'chainId "0" (any chain) names no network: give one or the other'
            raise bad_request(NETWORK_MISMATCH, reason, errors=[_field("network", reason, "any_chain")])
        if request.nonce is None:
            reason = 'an authorization for any chain (chainId "0") needs its nonce: no one chain has it'
            raise bad_request(NONCE_REQUIRED, reason, errors=[_field("nonce", reason, "required")])
        return 0, None
    network = resolve(request.network, request.chainId)
    return network.chainId, network


def message_bytes(message: str, encoding: str) -> bytes:
    """The bytes `message` stands for; 400 naming `message` when they are not hex or over MAX_MESSAGE_BYTES."""
    if encoding == "hex":
        if len(message) > 2 + 2 * MAX_MESSAGE_BYTES:
            raise _too_large()
        if not _HEX_BYTES.fullmatch(message):
            reason = "with encoding hex, message must be 0x-prefixed hex bytes (an even number of digits)"
            raise bad_request(INVALID_MESSAGE, reason, errors=[_field("message", reason, "hex")])
        return bytes.fromhex(message[2:])
    try:
        data = message.encode("utf-8")
    except UnicodeEncodeError:  # a lone surrogate (JSON's "\ud800"): no UTF-8 bytes to sign
        reason = "message is not valid Unicode text"
        raise bad_request(INVALID_MESSAGE, reason, errors=[_field("message", reason, "utf8")]) from None
    if len(data) > MAX_MESSAGE_BYTES:
        raise _too_large()
    return data


def _wallet(principal: WalletPrincipal, secret: str | None) -> BoundWallet:
    # With a secret the wallet's record is read once: its secret0 hash is checked before the run.
    return provisioning.wallet_of(principal) if secret is not None else provisioning.bound_wallet(principal)


def _too_large() -> Exception:
    reason = f"message is over {MAX_MESSAGE_BYTES} bytes"
    return bad_request(MESSAGE_TOO_LARGE, reason, errors=[_field("message", reason, "too_large")])


def _field(name: str, message: str, kind: str) -> dict[str, str]:
    return {"field": name, "message": message[:300], "type": kind}


def _hex(data: bytes) -> str:
    return "0x" + data.hex()
