from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Self, TypeVar, cast

from attrs import define as _attrs_define

from ..models.evaluate_body_encoding import EvaluateBodyEncoding
from ..types import UNSET, Unset

if TYPE_CHECKING:
    from ..models.authorization_to_evaluate import AuthorizationToEvaluate
    from ..models.evaluate_body_typed_data_type_0 import EvaluateBodyTypedDataType0
    from ..models.transaction_to_evaluate import TransactionToEvaluate


T = TypeVar("T", bound="EvaluateBody")


@_attrs_define
class EvaluateBody:
    """`POST /api/v1/policies/evaluate`: exactly one of `transaction`, `message`, `typedData`, `authorization`.

    Attributes:
        transaction (None | TransactionToEvaluate | Unset):
        message (None | str | Unset): A personal message: text (its UTF-8 bytes) or, with `encoding: hex`, 0x-prefixed
            hex bytes; at most 65536 bytes.
        encoding (EvaluateBodyEncoding | Unset): How `message` is written (as in sign-message). Default:
            EvaluateBodyEncoding.UTF8.
        typed_data (EvaluateBodyTypedDataType0 | None | Unset): An EIP-712 document as `eth_signTypedData_v4` takes it
            (as in sign-typed-data).
        authorization (AuthorizationToEvaluate | None | Unset): An EIP-7702 authorization (as in sign-authorization).
        wallet_address (None | str | Unset): A wallet of the app's client: its rolling 24 h totals count against
            `maxValuePer24h` and `maxCountPer24h`. Without it they count from zero.
    """

    transaction: None | TransactionToEvaluate | Unset = UNSET
    message: None | str | Unset = UNSET
    encoding: EvaluateBodyEncoding | Unset = EvaluateBodyEncoding.UTF8
    typed_data: EvaluateBodyTypedDataType0 | None | Unset = UNSET
    authorization: AuthorizationToEvaluate | None | Unset = UNSET
    wallet_address: None | str | Unset = UNSET

    def to_dict(self) -> dict[str, Any]:
        from ..models.authorization_to_evaluate import AuthorizationToEvaluate
        from ..models.evaluate_body_typed_data_type_0 import EvaluateBodyTypedDataType0
        from ..models.transaction_to_evaluate import TransactionToEvaluate

        transaction: dict[str, Any] | None | Unset
        if isinstance(self.transaction, Unset):
            transaction = UNSET
        elif isinstance(self.transaction, TransactionToEvaluate):
            transaction = self.transaction.to_dict()
        else:
            transaction = self.transaction

        message: None | str | Unset
        if isinstance(self.message, Unset):
            message = UNSET
        else:
            message = self.message

        encoding: str | Unset = UNSET
        if not isinstance(self.encoding, Unset):
            encoding = self.encoding.value

        typed_data: dict[str, Any] | None | Unset
        if isinstance(self.typed_data, Unset):
            typed_data = UNSET
        elif isinstance(self.typed_data, EvaluateBodyTypedDataType0):
            typed_data = self.typed_data.to_dict()
        else:
            typed_data = self.typed_data

        authorization: dict[str, Any] | None | Unset
        if isinstance(self.authorization, Unset):
            authorization = UNSET
        elif isinstance(self.authorization, AuthorizationToEvaluate):
            authorization = self.authorization.to_dict()
        else:
            authorization = self.authorization

        wallet_address: None | str | Unset
        if isinstance(self.wallet_address, Unset):
            wallet_address = UNSET
        else:
            wallet_address = self.wallet_address

        field_dict: dict[str, Any] = {}

        field_dict.update({})
        if transaction is not UNSET:
            field_dict["transaction"] = transaction
        if message is not UNSET:
            field_dict["message"] = message
        if encoding is not UNSET:
            field_dict["encoding"] = encoding
        if typed_data is not UNSET:
            field_dict["typedData"] = typed_data
        if authorization is not UNSET:
            field_dict["authorization"] = authorization
        if wallet_address is not UNSET:
            field_dict["walletAddress"] = wallet_address

        return field_dict

    @classmethod
    def from_dict(cls, src_dict: Mapping[str, Any]) -> Self:
        from ..models.authorization_to_evaluate import AuthorizationToEvaluate
        from ..models.evaluate_body_typed_data_type_0 import EvaluateBodyTypedDataType0
        from ..models.transaction_to_evaluate import TransactionToEvaluate

        d = dict(src_dict)

        def _parse_transaction(data: object) -> None | TransactionToEvaluate | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                transaction_type_0 = TransactionToEvaluate.from_dict(data)

                return transaction_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(None | TransactionToEvaluate | Unset, data)

        transaction = _parse_transaction(d.pop("transaction", UNSET))

        def _parse_message(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        message = _parse_message(d.pop("message", UNSET))

        _encoding = d.pop("encoding", UNSET)
        encoding: EvaluateBodyEncoding | Unset
        if isinstance(_encoding, Unset):
            encoding = UNSET
        else:
            encoding = EvaluateBodyEncoding(_encoding)

        def _parse_typed_data(
            data: object,
        ) -> EvaluateBodyTypedDataType0 | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                typed_data_type_0 = EvaluateBodyTypedDataType0.from_dict(data)

                return typed_data_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(EvaluateBodyTypedDataType0 | None | Unset, data)

        typed_data = _parse_typed_data(d.pop("typedData", UNSET))

        def _parse_authorization(
            data: object,
        ) -> AuthorizationToEvaluate | None | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            try:
                if not isinstance(data, dict):
                    raise TypeError()
                authorization_type_0 = AuthorizationToEvaluate.from_dict(data)

                return authorization_type_0
            except (TypeError, ValueError, AttributeError, KeyError):
                pass
            return cast(AuthorizationToEvaluate | None | Unset, data)

        authorization = _parse_authorization(d.pop("authorization", UNSET))

        def _parse_wallet_address(data: object) -> None | str | Unset:
            if data is None:
                return data
            if isinstance(data, Unset):
                return data
            return cast(None | str | Unset, data)

        wallet_address = _parse_wallet_address(d.pop("walletAddress", UNSET))

        evaluate_body = cls(
            transaction=transaction,
            message=message,
            encoding=encoding,
            typed_data=typed_data,
            authorization=authorization,
            wallet_address=wallet_address,
        )

        return evaluate_body
