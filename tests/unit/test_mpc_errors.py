"""MpcRunError has one answer to a caller: a bad private key is the caller's 400, anything else a 503 to retry."""

from __future__ import annotations

import pytest

from chalicelib.mpc.service import INVALID_PRIVATE_KEY, POLICY_REFUSED, SIGNER_UNAVAILABLE, SIGNING_FAILED, MpcRunError


def test_an_invalid_private_key_is_the_callers_400():
    error = MpcRunError(INVALID_PRIVATE_KEY, "Not a valid secp256k1 private key").api_error()
    assert (error.status, error.code, error.message) == (400, INVALID_PRIVATE_KEY, "Not a valid secp256k1 private key")


@pytest.mark.parametrize("code", [SIGNER_UNAVAILABLE, SIGNING_FAILED, POLICY_REFUSED])
def test_any_other_failure_is_503_signer_unavailable(code):
    error = MpcRunError(code, "the parties could not complete the run").api_error()
    assert (error.status, error.code) == (503, SIGNER_UNAVAILABLE)
    assert error.message == "the parties could not complete the run"
