"""Per-app webhook signing keys: derivation, rotation with a grace period, initialisation by the rotator only."""

from __future__ import annotations

import time

from nacl.signing import VerifyKey

from chalicelib.platform import aws
from chalicelib.webhooks import signing_keys as keys


def test_each_app_has_its_own_key_and_signatures_verify(aws_env):
    a, b = keys.app_key("app-a"), keys.app_key("app-b")
    assert a.public_key() != b.public_key() and a.key_id == b.key_id
    signature = a.sign(b"id.1700000000.{}")
    VerifyKey(a.public_key()).verify(b"id.1700000000.{}", signature)
    assert keys.app_key("app-a").public_key() == a.public_key(), "derivation is stable"


def test_rotation_keeps_the_old_key_for_its_grace_period(aws_env):
    now = int(time.time())
    first = keys.current()
    old_public = keys.app_key("app").public_key()
    assert keys.rotate(now + 1) == [first], "not due yet: unchanged"

    rotated = keys.rotate(now + keys.ROTATION_S + 1)
    assert len(rotated) == 2 and rotated[1] == first
    assert keys.app_key("app").public_key() != old_public
    assert [keys.app_key("app", s).public_key() for s in keys.previous()] == [old_public]

    after_grace = keys.rotate(now + keys.ROTATION_S + keys.GRACE_S + 2)
    assert [s.kid for s in after_grace] == [rotated[0].kid]


def test_readers_never_write_the_key_set(aws_env):
    """Readers (the API, the delivery worker) have only a read grant: they used to initialise the set themselves."""
    import pytest

    aws.client("secretsmanager").put_secret_value(SecretId=aws.secret_id(keys.SECRET), SecretString="{}")
    keys.forget()
    with pytest.raises(keys.KeysNotInitialisedError):
        keys.current()
    assert keys.rotate() and keys.current().seed and len(keys.current().seed) == 32  # the rotator initialises


def test_concurrent_initialisations_agree_on_one_key(aws_env, monkeypatch):
    """Two rotations that read the same (empty) version: the second write is refused, both end on one key."""
    aws.client("secretsmanager").put_secret_value(SecretId=aws.secret_id(keys.SECRET), SecretString="{}")
    keys.forget()
    real_read = keys._read_versioned
    seen = real_read()
    monkeypatch.setattr(keys, "_read_versioned", lambda: seen)  # both read before either wrote
    first = keys.rotate()
    second = keys.rotate()
    monkeypatch.setattr(keys, "_read_versioned", real_read)
    keys.forget()
    assert first == second == [keys.current()]
