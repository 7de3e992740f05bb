"""Wallet routes of the interface's first group (Family W with a wallet token)."""

from __future__ import annotations

from chalice import Blueprint

from chalicelib.auth import guards
from chalicelib.evm.pipeline import Sent
from chalicelib.platform.errors import UPSTREAM_UNAVAILABLE
from chalicelib.platform.pagination import page_query, pagination
from chalicelib.platform.path_ids import PathId
from chalicelib.platform.router import JSON, MULTIPART, Call, Reply, route
from chalicelib.wallets import balances, history, provisioning, sending, signatures
from chalicelib.wallets.models import (
    AuthorizationSignature,
    Balance,
    CancelRequest,
    CreateWalletRequest,
    DelegateRequest,
    ImportWalletRequest,
    MessageSignature,
    RecoverWalletRequest,
    SendCoinRequest,
    SendResult,
    SendTokenRequest,
    SendTransactionRequest,
    SignaturePage,
    SignAuthorizationRequest,
    SignMessageRequest,
    SignTypedDataRequest,
    SpeedUpRequest,
    TokenBalanceRequest,
    TransactionPage,
    TransactionView,
    TransferErc721Request,
    TypedDataSignature,
    WalletCreated,
    WalletRequest,
)

bp = Blueprint(__name__)

CREATED = "create wallet successfully"
RECOVERED = "recover wallet successfully"
IMPORTED = "import wallet successfully"


@route(
    bp,
    "/api/v1/account/create",
    "POST",
    summary="Create the user's MPC wallet",
    description="Runs 2-of-3 threshold key generation (signer, cosigner, user). The user's share comes back "
    "once, sealed, as `secret0` (and as a file behind `secret0Link` for 5 minutes); no table stores it, "
    "the service keeps a hash of it. Needs the token of a user without a wallet; "
    "a second create is 409 `WALLET_EXISTS`.",
    tag="Account",
    guard=guards.any_user_token,
    body=CreateWalletRequest,
    response=WalletCreated,
    message=CREATED,
    errors={
        400: ("INVALID_ADDRESS", "INVALID_EXPIRE_DATE", "INVALID_PRIVATE_KEY"),
        403: ("POLICY_DENIED",),
        409: ("KEY_ALREADY_IMPORTED", "WALLET_CREATION_IN_PROGRESS", "WALLET_EXISTS"),
        503: ("LIST_BUSY", "SIGNER_BUSY", "SIGNER_UNAVAILABLE", "WALLET_POOL_EMPTY"),
    },
)
def create_wallet(call: Call) -> Reply:
    return Reply(provisioning.create(call.principal, call.body.expireDate), CREATED)


@route(
    bp,
    "/api/v1/account/recover",
    "POST",
    summary="Bind an existing wallet to this user with its secret0",
    description="JSON `{secret0}`, or multipart/form-data with the recovery file in part `file`. The wallet "
    "moves to the presenting user (of the same client); its previous user loses it and every token issued "
    "to them. Shares and secret0 stay the same (docs/mpc.md).",
    tag="Account",
    guard=guards.any_user_token,
    body=RecoverWalletRequest,
    response=WalletCreated,
    message=RECOVERED,
    errors={
        400: ("INVALID_EXPIRE_DATE", "MALFORMED_SECRET0", "MISSING_SECRET0"),
        409: ("KEY_ALREADY_IMPORTED", "WALLET_CREATION_IN_PROGRESS", "WALLET_EXISTS"),
        422: ("UNKNOWN_SECRET0",),
        503: ("LIST_BUSY",),
    },
    content_types=(JSON, MULTIPART),
)
def recover_wallet(call: Call) -> Reply:
    return Reply(provisioning.recover(call.principal, call.body.presented, call.body.expireDate), RECOVERED)


@route(
    bp,
    "/api/v1/account/import",
    "POST",
    summary="Import an existing private key as this user's MPC wallet",
    description="The key is split into shares A, B and C as a trusted dealer and wiped; from then on it exists "
    "only as shares, like a created wallet.",
    tag="Account",
    guard=guards.any_user_token,
    body=ImportWalletRequest,
    response=WalletCreated,
    message=IMPORTED,
    errors={
        400: ("INVALID_ADDRESS", "INVALID_EXPIRE_DATE", "INVALID_PRIVATE_KEY"),
        403: ("POLICY_DENIED",),
        409: ("KEY_ALREADY_IMPORTED", "WALLET_CREATION_IN_PROGRESS", "WALLET_EXISTS"),
        503: ("LIST_BUSY", "SIGNER_BUSY", "SIGNER_UNAVAILABLE", "WALLET_POOL_EMPTY"),
    },
)
def import_wallet(call: Call) -> Reply:
    return Reply(provisioning.import_key(call.principal, call.body.privateKey, call.body.expireDate), IMPORTED)


@route(
    bp,
    "/api/v1/wallet/balance-coin",
    "POST",
    summary="Native coin balance of the wallet",
    tag="Wallet",
    guard=guards.wallet_token,
    body=WalletRequest,
    response=Balance,
    message="get balance successfully",
    errors={
        400: ("NETWORK_MISMATCH", "NETWORK_REQUIRED", "UNKNOWN_NETWORK"),
        404: ("WALLET_NOT_FOUND",),
        502: ("UPSTREAM_UNAVAILABLE",),
    },
    description="Family W (wallet token). The native coin balance of the user's MPC wallet on the network named by "
    "`network` or `chainId`, in human units (`balance`, e.g. ether).",
)
def balance_coin(call: Call) -> Reply:
    return Reply(balances.coin_balance(call.principal, call.body), "get balance successfully")


@route(
    bp,
    "/api/v1/wallet/balance-token",
    "POST",
    summary="ERC-20 token balance of the wallet",
    tag="Wallet",
    guard=guards.wallet_token,
    body=TokenBalanceRequest,
    response=Balance,
    message="get balance successfully",
    errors={
        400: ("INVALID_ADDRESS", "NETWORK_MISMATCH", "NETWORK_REQUIRED", "UNKNOWN_NETWORK"),
        404: ("WALLET_NOT_FOUND",),
        422: ("NOT_A_TOKEN",),
        502: ("UPSTREAM_UNAVAILABLE",),
    },
    description="Family W (wallet token). The ERC-20 balance of `tokenAddress` held by the user's MPC wallet, in "
    "human units using the token's decimals; `422 NOT_A_TOKEN` when the address is no ERC-20 contract.",
)
def balance_token(call: Call) -> Reply:
    return Reply(balances.token_balance(call.principal, call.body), "get balance successfully")


SENT = sending.SENT


def _sent(sent: Sent) -> Reply:
    """A send's answer. No node confirmed the broadcast: 502 UPSTREAM_UNAVAILABLE with the hash (the
    transaction is recorded and tracked; stored under an Idempotency-Key like a success, so a retry
    cannot sign a second transaction)."""
    if not sent.confirmed:
        return Reply(
            {"code": UPSTREAM_UNAVAILABLE, "hash": sent.signed.hash},
            f"No node of {sent.network} confirmed the broadcast; the transaction is tracked",
            502,
        )
    return Reply({"txReceipt": sent.receipt}, SENT)


@route(
    bp,
    "/api/v1/wallet/send-coin",
    "POST",
    summary="Send native coin",
    description="`amount` in ether units as an exact decimal string. Honours `Idempotency-Key`.",
    tag="Wallet",
    guard=guards.wallet_token,
    body=SendCoinRequest,
    response=SendResult,
    message=SENT,
    errors={
        400: (
            "INVALID_ADDRESS",
            "INVALID_AMOUNT",
            "INVALID_PRIVATE_KEY",
            "NETWORK_MISMATCH",
            "NETWORK_REQUIRED",
            "UNKNOWN_NETWORK",
        ),
        401: ("INVALID_SECRET",),
        403: ("POLICY_DENIED",),
        404: ("WALLET_NOT_FOUND",),
        422: ("BROADCAST_REJECTED", "INSUFFICIENT_FUNDS", "TRANSACTION_WOULD_FAIL"),
        502: ("UPSTREAM_UNAVAILABLE",),
        503: ("LIST_BUSY", "NONCE_BUSY", "SIGNER_BUSY", "SIGNER_UNAVAILABLE"),
    },
    idempotent=True,
)
def send_coin(call: Call) -> Reply:
    return _sent(sending.send_coin(call.principal, call.body))


@route(
    bp,
    "/api/v1/wallet/send-token",
    "POST",
    summary="Send ERC-20 tokens",
    description="`amount` in the token's units; its decimals are read from the contract. Honours `Idempotency-Key`.",
    tag="Wallet",
    guard=guards.wallet_token,
    body=SendTokenRequest,
    response=SendResult,
    message=SENT,
    errors={
        400: (
            "INVALID_ADDRESS",
            "INVALID_AMOUNT",
            "INVALID_PRIVATE_KEY",
            "NETWORK_MISMATCH",
            "NETWORK_REQUIRED",
            "UNKNOWN_NETWORK",
        ),
        401: ("INVALID_SECRET",),
        403: ("POLICY_DENIED",),
        404: ("WALLET_NOT_FOUND",),
        422: (
            "BROADCAST_REJECTED",
            "INSUFFICIENT_FUNDS",
            "INSUFFICIENT_TOKEN_BALANCE",
            "NOT_A_TOKEN",
            "TRANSACTION_WOULD_FAIL",
        ),
        502: ("UPSTREAM_UNAVAILABLE",),
        503: ("LIST_BUSY", "NONCE_BUSY", "SIGNER_BUSY", "SIGNER_UNAVAILABLE"),
    },
    idempotent=True,
)
def send_token(call: Call) -> Reply:
    return _sent(sending.send_token(call.principal, call.body))


@route(
    bp,
    "/api/v1/wallet/transfer-erc721",
    "POST",
    summary="Transfer an ERC-721 token (safeTransferFrom)",
    description="The wallet must own `tokenId`. Honours `Idempotency-Key`.",
    tag="Wallet",
    guard=guards.wallet_token,
    body=TransferErc721Request,
    response=SendResult,
    message=SENT,
    errors={
        400: (
            "INVALID_ADDRESS",
            "INVALID_PRIVATE_KEY",
            "INVALID_TOKEN_ID",
            "NETWORK_MISMATCH",
            "NETWORK_REQUIRED",
            "UNKNOWN_NETWORK",
        ),
        401: ("INVALID_SECRET",),
        403: ("POLICY_DENIED",),
        404: ("WALLET_NOT_FOUND",),
        422: ("BROADCAST_REJECTED", "INSUFFICIENT_FUNDS", "NOT_TOKEN_OWNER", "TRANSACTION_WOULD_FAIL"),
        502: ("UPSTREAM_UNAVAILABLE",),
        503: ("LIST_BUSY", "NONCE_BUSY", "SIGNER_BUSY", "SIGNER_UNAVAILABLE"),
    },
    idempotent=True,
)
def transfer_erc721(call: Call) -> Reply:
    return _sent(sending.transfer_erc721(call.principal, call.body))


@route(
    bp,
    "/api/v1/wallet/send-transaction",
    "POST",
    summary="Sign and send a raw transaction",
    description="Hex fields; `from` must be the wallet. Missing nonce, gas or fees are filled in; a given "
    "`gasPrice` makes a legacy transaction, an `authorizationList` (signed EIP-7702 tuples) a set-code "
    "transaction (type 4). Honours `Idempotency-Key`.",
    tag="Wallet",
    guard=guards.wallet_token,
    body=SendTransactionRequest,
    response=SendResult,
    message=SENT,
    errors={
        400: (
            "FROM_MISMATCH",
            "INVALID_ADDRESS",
            "INVALID_AUTHORIZATION",
            "INVALID_PRIVATE_KEY",
            "INVALID_TRANSACTION",
            "NETWORK_MISMATCH",
            "NETWORK_REQUIRED",
            "UNKNOWN_NETWORK",
        ),
        401: ("INVALID_SECRET",),
        403: ("POLICY_DENIED",),
        404: ("WALLET_NOT_FOUND",),
        422: (
            "AUTHORIZATION_NONCE_MISMATCH",
            "BROADCAST_REJECTED",
            "INSUFFICIENT_FUNDS",
            "TRANSACTION_WOULD_FAIL",
        ),
        502: ("UPSTREAM_UNAVAILABLE",),
        503: ("LIST_BUSY", "NONCE_BUSY", "SIGNER_BUSY", "SIGNER_UNAVAILABLE"),
    },
    idempotent=True,
)
def send_transaction(call: Call) -> Reply:
    return _sent(sending.send_transaction(call.principal, call.body))


@route(
    bp,
    "/api/v1/wallet/delegate",
    "POST",
    summary="Delegate the wallet to a contract's code (EIP-7702), or revoke its delegation",
    description="A set-code transaction (type 4) from the wallet to itself, carrying its own authorization of "
    "`contractAddress` at the transaction's nonce + 1, signed under the app's signing policies (`authorizations`, "
    "docs/policies.md). Once mined, the wallet's code is `0xef0100 ‖ contractAddress`; the zero address clears "
    "it. The wallet pays the gas. Recorded and tracked like every send (speed-up and cancel included); the "
    "authorization is listed in `GET /api/v1/wallet/signatures`. Honours `Idempotency-Key`.",
    tag="Wallet",
    guard=guards.wallet_token,
    body=DelegateRequest,
    response=SendResult,
    message=SENT,
    errors={
        400: (
            "INVALID_ADDRESS",
            "INVALID_PRIVATE_KEY",
            "NETWORK_MISMATCH",
            "NETWORK_REQUIRED",
            "UNKNOWN_NETWORK",
        ),
        401: ("INVALID_SECRET",),
        403: ("POLICY_DENIED",),
        404: ("WALLET_NOT_FOUND",),
        422: ("BROADCAST_REJECTED", "INSUFFICIENT_FUNDS", "TRANSACTION_WOULD_FAIL"),
        502: ("UPSTREAM_UNAVAILABLE",),
        503: ("LIST_BUSY", "NONCE_BUSY", "SIGNER_BUSY", "SIGNER_UNAVAILABLE"),
    },
    idempotent=True,
)
def delegate(call: Call) -> Reply:
    return _sent(sending.delegate(call.principal, call.body))


TransactionsQuery = page_query(20)
_TRANSACTION_ID = PathId(history.TRANSACTION_NOT_FOUND, "No transaction with this hash was sent from this wallet")


@route(
    bp,
    "/api/v1/wallet/transactions",
    "GET",
    summary="Transactions sent from the wallet, newest first",
    tag="Wallet",
    guard=guards.wallet_token,
    query=TransactionsQuery,
    response=TransactionPage,
    errors={404: ("WALLET_NOT_FOUND",)},
    description="Family W (wallet token). Every transaction the wallet sent, one entry per nonce, with its tracking "
    "status (`pending`, `mined`, `failed`, `dropped` or `cancelled`; `signing` briefly, before its broadcast), its "
    "`replacements` and the `minedHash`; gap fills the service signed (`kind: gap_fill`) too. Query `page` (from 1) "
    "and `limit`; the answer is `{data, pagination}` with `total`, `totalPages`, `hasNext`, `hasPrev`.",
)
def list_transactions(call: Call) -> Reply:
    wallet = provisioning.bound_wallet(call.principal)
    records, total = history.page(wallet.walletId, call.query)
    return Reply({"data": records, "pagination": pagination(total, call.query).model_dump()})


@route(
    bp,
    "/api/v1/wallet/transactions/{hash}",
    "GET",
    summary="One transaction sent from the wallet, with its tracking status",
    tag="Wallet",
    guard=guards.wallet_token,
    response=TransactionView,
    errors={404: ("TRANSACTION_NOT_FOUND", "WALLET_NOT_FOUND")},
    ids={"hash": _TRANSACTION_ID},
    description="Family W (wallet token). One transaction the wallet sent, by hash: look a send up here instead of "
    "resending it after a timeout or `409 IDEMPOTENCY_OUTCOME_UNKNOWN`. Any hash signed at its nonce (the first "
    "send's or a replacement's) answers the same record.",
)
def get_transaction(call: Call) -> Reply:
    wallet = provisioning.bound_wallet(call.principal)
    return Reply(history.view(wallet.walletId, call.path_params["hash"]))


# What a replacement can answer, beyond the router's own: the record, the fees, the signer and the broadcast.
_REPLACEMENT_ERRORS: dict[int, tuple[str, ...]] = {
    400: ("INVALID_ADDRESS", "INVALID_PRIVATE_KEY", "NETWORK_MISMATCH", "NETWORK_REQUIRED", "UNKNOWN_NETWORK"),
    401: ("INVALID_SECRET",),
    403: ("POLICY_DENIED",),
    404: ("TRANSACTION_NOT_FOUND", "WALLET_NOT_FOUND"),
    409: ("REPLACEMENT_UNDERPRICED", "TRANSACTION_FINAL"),
    422: ("BROADCAST_REJECTED", "FEE_ABOVE_CEILING", "INSUFFICIENT_FUNDS"),
    502: ("UPSTREAM_UNAVAILABLE",),
    503: ("LIST_BUSY", "SIGNER_BUSY", "SIGNER_UNAVAILABLE"),
}


@route(
    bp,
    "/api/v1/wallet/transactions/{hash}/speed-up",
    "POST",
    summary="Speed up a pending transaction: the same one at higher fees",
    description="Family W (wallet token). Signs the pending transaction again at its nonce with higher fees and "
    "broadcasts it; whichever of its signatures is mined settles the record (`minedHash`), so it is paid once. "
    "Fees in the transaction's own kind, decimal wei: `gasPrice` (legacy) or `maxFeePerGas` with "
    "`maxPriorityFeePerGas` (EIP-1559), each at least 10% above the current one (`409 REPLACEMENT_UNDERPRICED`) "
    "and at most the network's fee ceiling (`422 FEE_ABOVE_CEILING`); another kind, half a pair or a bad number "
    "is `400 INVALID_FEES` naming the field. No fees: the next bump (at least 10% more, and what the chain asks "
    "now). `secret`: A+C sign instead of A+B, as for sends. `hash`: any hash of the record. A transaction no "
    "longer pending is `409 TRANSACTION_FINAL`. Answers the replacement as sends answer (`{txReceipt}`). Honours "
    "`Idempotency-Key`.",
    tag="Wallet",
    guard=guards.wallet_token,
    body=SpeedUpRequest,
    response=SendResult,
    message=SENT,
    errors={**_REPLACEMENT_ERRORS, 400: ("INVALID_FEES", *_REPLACEMENT_ERRORS[400])},
    ids={"hash": _TRANSACTION_ID},
    idempotent=True,
)
def speed_up_transaction(call: Call) -> Reply:
    return _sent(sending.speed_up(call.principal, call.path_params["hash"], call.body))


@route(
    bp,
    "/api/v1/wallet/transactions/{hash}/cancel",
    "POST",
    summary="Cancel a pending transaction: a 0-value send to the wallet itself at its nonce",
    description="Family W (wallet token). Signs a 0-value send from the wallet to itself at the pending "
    "transaction's nonce, at the next bump's fees (at least 10% more, and what the chain asks now, up to the "
    "network's fee ceiling: `422 FEE_ABOVE_CEILING`), and broadcasts it. If the cancel is mined the record becomes "
    "`cancelled` and nothing was sent but the fee; if the transaction is mined first, it stays `mined`. `secret`: "
    "A+C sign instead of A+B. `hash`: any hash of the record. A transaction no longer pending is `409 "
    "TRANSACTION_FINAL`. Answers the cancel as sends answer (`{txReceipt}`). Honours `Idempotency-Key`.",
    tag="Wallet",
    guard=guards.wallet_token,
    body=CancelRequest,
    response=SendResult,
    message=SENT,
    errors=_REPLACEMENT_ERRORS,
    ids={"hash": _TRANSACTION_ID},
    idempotent=True,
)
def cancel_transaction(call: Call) -> Reply:
    return _sent(sending.cancel(call.principal, call.path_params["hash"], call.body))


SIGNED_MESSAGE = "sign message successfully"
SIGNED_TYPED_DATA = "sign typed data successfully"
SIGNED_AUTHORIZATION = "sign authorization successfully"


@route(
    bp,
    "/api/v1/wallet/sign-message",
    "POST",
    summary="Sign an EIP-191 personal message (personal_sign)",
    description='Signs keccak256("\\x19Ethereum Signed Message:\\n" + length + message), as ethers '
    "`signMessage` and viem `signMessage` do; verify with `verifyMessage`. `message` is text (its UTF-8 bytes) or, "
    "with `encoding: hex`, 0x-prefixed bytes; at most 64 KiB (`400 MESSAGE_TOO_LARGE`; bad hex `400 "
    "INVALID_MESSAGE`). No `network`: a personal message is not bound to a chain. `secret`: A+C sign instead of "
    "A+B (`401 INVALID_SECRET`). Listed in `GET /api/v1/wallet/signatures`.",
    tag="Wallet",
    guard=guards.wallet_token,
    body=SignMessageRequest,
    response=MessageSignature,
    message=SIGNED_MESSAGE,
    errors={
        400: ("INVALID_ADDRESS", "INVALID_MESSAGE", "INVALID_PRIVATE_KEY", "MESSAGE_TOO_LARGE"),
        401: ("INVALID_SECRET",),
        403: ("POLICY_DENIED",),
        404: ("WALLET_NOT_FOUND",),
        503: ("LIST_BUSY", "SIGNER_BUSY", "SIGNER_UNAVAILABLE"),
    },
)
def sign_message(call: Call) -> Reply:
    return Reply(signatures.sign_message(call.principal, call.body), SIGNED_MESSAGE)


@route(
    bp,
    "/api/v1/wallet/sign-typed-data",
    "POST",
    summary="Sign EIP-712 typed data (eth_signTypedData_v4)",
    description="`typedData` is `{types, primaryType, domain, message}`; `EIP712Domain` may be left out of "
    "`types` (derived from the domain's fields, as ethers and viem do). The chain is the domain's `chainId`; no "
    "`network`. Malformed typed data (unknown type, missing field, a value out of range, a cycle, a primaryType "
    "not in types, over 64 KiB) is a 400 whose `data.errors[0].field` names the place; it is never signed. "
    "Verify with ethers or viem `verifyTypedData`. Listed in `GET /api/v1/wallet/signatures`.",
    tag="Wallet",
    guard=guards.wallet_token,
    body=SignTypedDataRequest,
    response=TypedDataSignature,
    message=SIGNED_TYPED_DATA,
    errors={
        400: ("INVALID_ADDRESS", "INVALID_PRIVATE_KEY", "INVALID_TYPED_DATA", "TYPED_DATA_TOO_LARGE"),
        401: ("INVALID_SECRET",),
        403: ("POLICY_DENIED",),
        404: ("WALLET_NOT_FOUND",),
        503: ("LIST_BUSY", "SIGNER_BUSY", "SIGNER_UNAVAILABLE"),
    },
)
def sign_typed_data(call: Call) -> Reply:
    return Reply(signatures.sign_typed_data(call.principal, call.body), SIGNED_TYPED_DATA)


@route(
    bp,
    "/api/v1/wallet/sign-authorization",
    "POST",
    summary="Sign an EIP-7702 authorization (the wallet delegates to a contract's code)",
    description='`network` or `chainId` (`"0"`: valid on any chain, then `nonce` is required), '
    "`contractAddress` (the delegate; the zero address revokes) and optional `nonce` (default: the wallet's "
    "pending nonce on that chain; a type-4 transaction the wallet sends itself needs that nonce + 1). The cosigner "
    "hashes keccak256(0x05 ‖ rlp([chainId, address, nonce])) itself and decides it under the app's signing "
    "policies (`authorizations`, docs/policies.md; chain id 0 only where a policy allows it). The answer is an "
    "`authorizationList` entry: `{chainId, address, nonce, yParity, r, s, hash}`, low s. Verify with viem "
    "`verifyAuthorization` or eth-account. Listed in `GET /api/v1/wallet/signatures`.",
    tag="Wallet",
    guard=guards.wallet_token,
    body=SignAuthorizationRequest,
    response=AuthorizationSignature,
    message=SIGNED_AUTHORIZATION,
    errors={
        400: (
            "INVALID_ADDRESS",
            "INVALID_PRIVATE_KEY",
            "NETWORK_MISMATCH",
            "NETWORK_REQUIRED",
            "NONCE_REQUIRED",
            "UNKNOWN_NETWORK",
        ),
        401: ("INVALID_SECRET",),
        403: ("POLICY_DENIED",),
        404: ("WALLET_NOT_FOUND",),
        502: ("UPSTREAM_UNAVAILABLE",),
        503: ("LIST_BUSY", "SIGNER_BUSY", "SIGNER_UNAVAILABLE"),
    },
)
def sign_authorization(call: Call) -> Reply:
    return Reply(signatures.sign_authorization(call.principal, call.body), SIGNED_AUTHORIZATION)


SignaturesQuery = page_query(20)


@route(
    bp,
    "/api/v1/wallet/signatures",
    "GET",
    summary="Messages and typed data the wallet signed, newest first",
    description="Each entry: `kind` (`personal_message`, `typed_data` or `authorization`), `hash` (the digest "
    "signed), the typed data's `primaryType`, `chainId` and `verifyingContract`, an authorization's `chainId` and "
    "`contractAddress`, and `createdAt`. Neither messages nor signatures "
    "are kept.",
    tag="Wallet",
    guard=guards.wallet_token,
    query=SignaturesQuery,
    response=SignaturePage,
    errors={404: ("WALLET_NOT_FOUND",)},
)
def list_signatures(call: Call) -> Reply:
    wallet = provisioning.bound_wallet(call.principal)
    records, total = history.signatures_page(wallet.walletId, call.query)
    return Reply({"data": records, "pagination": pagination(total, call.query).model_dump()})
