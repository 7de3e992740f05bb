from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.sign_message_request_encoding import SignMessageRequestEncoding
from ..types import UNSET, Unset

T = TypeVar("T", bound="SignMessageRequest")


@_attrs_define
class SignMessageRequest:
    """An EIP-191 personal message (`personal_sign`). No `network`: the signature is not bound to a chain.

    Attributes:
        message (str): The message: text (signed as its UTF-8 bytes) or, with `encoding: hex`, 0x-prefixed hex bytes. At
            most 65536 bytes (400 MESSAGE_TOO_LARGE). Without `secret` shares A and B sign; with it, A and C.
        secret (None | str | Unset): The wallet's secret0 from the user's device. Only operations that sign use it.
        encoding (SignMessageRequestEncoding | Unset): `utf8` (default): `message` is text; `hex`: `message` is
            0x-prefixed bytes. Default: SignMessageRequestEncoding.UTF8.
    """

    message: str
    secret: None | str | Unset = UNSET
    encoding: SignMessageRequestEncoding | Unset = SignMessageRequestEncoding.UTF8

    def to_dict(self) -> dict[str, Any]:
        message = self.message

        secret: None | str | Unset
        if isinstance(self.secret, Unset):
            secret = UNSET
        else:
            secret = self.secret

        encoding: str | Unset = UNSET
        if not isinstance(self.encoding, Unset):
            encoding = self.encoding.value

        field_dict: dict[str, Any] = {}

        field_dict.update(
            {
                "message": message,
            }
        )
        if secret is not UNSET:
            field_dict["secret"] = secret
        if encoding is not UNSET:
            field_dict["encoding"] = encoding

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        d = dict(src_dict)
        message = d.pop("message")

        def _parse_secret(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        secret = _parse_secret(d.pop("secret", UNSET))

        _encoding = d.pop("encoding", UNSET)
        encoding: SignMessageRequestEncoding | Unset
        if isinstance(_encoding, Unset):
            encoding = UNSET
        else:
            encoding = SignMessageRequestEncoding(_encoding)

        sign_message_request = cls(
            message=message,
            secret=secret,
            encoding=encoding,
        )

        return sign_message_request
