"""Per-app webhook signing keys: derivation, rotation with a grace period, lazy initialisation."""

from __future__ import annotations

import time

from nacl.signing import VerifyKey

from chalicelib.platform import aws
from chalicelib.webhooks import keys


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


def test_a_stage_without_keys_initialises_them_on_first_use(aws_env):
    aws.client("secretsmanager").put_secret_value(SecretId=aws.secret_id(keys.SECRET), SecretString="{}")
    keys.forget()
    assert keys.current().seed and len(keys.current().seed) == 32
