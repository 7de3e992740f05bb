"""The shared field types (platform/amounts.py, platform/chain.py) and the code the router answers for them."""

from __future__ import annotations

import uuid

import pytest
from pydantic import BaseModel, ConfigDict, ValidationError

from chalicelib.platform.addresses import Address, checksum_address
from chalicelib.platform.amounts import MAX_UINT256, TokenId, Uint256, is_uint256
from chalicelib.platform.errors import ApiError
from chalicelib.platform.router import validation_failed
from tests.support.family_s import call

GOOD = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"  # EIP-55's example
WRONG_CHECKSUM = GOOD[:-1] + "D"


class Body(BaseModel):
    model_config = ConfigDict(extra="forbid")

    to: Address
    amount: Uint256
    tokenId: TokenId = "0"
    name: str = ""


def _answer(**fields: object) -> ApiError:
    with pytest.raises(ValidationError) as raised:
        Body.model_validate({"to": GOOD, "amount": "1", **fields}, strict=True)
    return validation_failed("Request validation failed", raised.value)


@pytest.mark.parametrize(
    ("text", "ok"),
    [
        ("0", True),
        ("000001", True),
        (str(MAX_UINT256), True),
        (str(MAX_UINT256 + 1), False),
        ("9" * 78, False),
        ("1" * 79, False),
        ("-1", False),
        ("1e3", False),
        ("1.0", False),
        ("", False),
        (" 1", False),
        ("\u0661", False),  # an Arabic-Indic digit: int() would read it
    ],
)
def test_uint256_is_exactly_0_to_2_256_minus_1(text, ok):
    assert is_uint256(text) is ok


@pytest.mark.parametrize(
    ("fields", "code", "field"),
    [
        ({"amount": str(MAX_UINT256 + 1)}, "INVALID_AMOUNT", "amount"),
        ({"tokenId": str(MAX_UINT256 + 1)}, "INVALID_TOKEN_ID", "tokenId"),
        ({"amount": "abc"}, "INVALID_AMOUNT", "amount"),
        ({"to": WRONG_CHECKSUM}, "INVALID_ADDRESS", "to"),
        ({"to": "0x1234"}, "INVALID_ADDRESS", "to"),
        ({"to": "0x" + "ab" * 20 + "00"}, "INVALID_ADDRESS", "to"),
    ],
)
def test_a_field_type_answers_its_own_code(fields, code, field):
    error = _answer(**fields)
    assert (error.status, error.code) == (400, code)
    assert [e["field"] for e in error.details["errors"]] == [field]


def test_problems_of_different_kinds_are_a_validation_error_listing_each():
    error = _answer(to=WRONG_CHECKSUM, amount=str(MAX_UINT256 + 1), name=7)
    assert error.code == "VALIDATION_ERROR"
    assert [e["field"] for e in error.details["errors"]] == ["to", "amount", "name"]


def test_the_address_type_is_the_services_check():
    for candidate in (GOOD, GOOD.lower(), "0x" + GOOD[2:].upper()):
        body = Body.model_validate({"to": candidate, "amount": "1"}, strict=True)
        assert body.to == GOOD == checksum_address(candidate, "to")
    with pytest.raises(ApiError) as raised:
        checksum_address(WRONG_CHECKSUM, "to")
    assert raised.value.code == _answer(to=WRONG_CHECKSUM).code == "INVALID_ADDRESS"


@pytest.mark.parametrize(
    ("kind", "fields", "code"),
    [
        ("sendCoin", {"amount": str(MAX_UINT256 + 1)}, "INVALID_AMOUNT"),
        ("sendERC1155", {"tokenAddress": GOOD, "tokenId": str(MAX_UINT256 + 1), "amount": "1"}, "INVALID_TOKEN_ID"),
        ("signTransaction", {"value": str(MAX_UINT256 + 1), "callData": "0x"}, "INVALID_AMOUNT"),
        ("sendToken", {"tokenAddress": WRONG_CHECKSUM, "amount": "1"}, "INVALID_ADDRESS"),
    ],
)
def test_user_op_bodies_answer_400_with_the_code(api, tenant, kind, fields, code):
    body = {"accountId": str(uuid.uuid4()), "to": GOOD, **fields}
    answer = call(api, tenant, "POST", f"/api/v1/userOp/{kind}/hash", body)
    assert answer.status_code == 400, answer.json_body
    assert answer.json_body["status"] == 400 and answer.json_body["data"]["code"] == code


def test_a_query_uses_the_same_rule(api, tenant):
    answer = call(api, tenant, "GET", "/api/v1/userOp?limit=abc")
    assert answer.status_code == 400 and answer.json_body["data"]["code"] == "VALIDATION_ERROR"
