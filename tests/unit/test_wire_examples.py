"""The models' examples are made from their fields' own examples (chalicelib/platform/examples.py): the rules of
the mechanism on small models, and over the service's models that no page restates its entry and no module keeps
a hand-written whole example."""

from __future__ import annotations

import importlib
import pkgutil
import sys
from typing import Any

import pytest
from pydantic import BaseModel, Field

import chalicelib
from chalicelib.platform import examples
from chalicelib.platform.pagination import Pagination
from chalicelib.platform.router import ROUTES
from chalicelib.platform.wire import WireModel


class Item(WireModel):
    id: str = Field(examples=["item-1"])
    status: str = Field(examples=["pending"])
    note: str | None = None
    doneAt: str | None
    tags: list[str] = Field(default_factory=list)


class Part(WireModel):
    name: str = Field(examples=["a"])


class OtherPart(WireModel):
    size: int = Field(examples=[3])


class Whole(WireModel):
    from_: str = Field(alias="from", examples=["0xabc"])
    part: Part
    parts: list[Part]
    either: list[Part | OtherPart]
    maybe: Part | None = None
    hidden: str | None = Field(None, exclude_if=lambda v: v is None)


class ItemPage(WireModel):
    example_overrides = {"data": [{"status": "done", "doneAt": "2026-11-22T08:00:00.000Z"}], "pagination": {"limit": 5}}

    data: list[Item]
    pagination: Pagination


class Request(WireModel):
    name: str = Field(examples=["x"])
    network: str | None = Field(None, examples=["polygon-pos"])
    chainId: str | None = None
    limit: int = 10
    part: Part | None = None


def test_an_answer_has_every_field_the_model_sends() -> None:
    # The field's example; its default; null for a nullable field without one.
    assert examples.example(Item) == {"id": "item-1", "status": "pending", "note": None, "doneAt": None, "tags": []}


def test_nested_models_lists_and_unions_are_their_models_examples() -> None:
    assert examples.example(Whole) == {
        "from": "0xabc",  # by alias, as the model sends it
        "part": {"name": "a"},
        "parts": [{"name": "a"}],
        "either": [{"name": "a"}],  # a union: its first model
        "maybe": {"name": "a"},
        # `hidden` is left out, as the model's serializer leaves it out
    }


def test_a_page_is_its_entry_with_the_values_it_overrides() -> None:
    assert examples.example(ItemPage) == {
        "data": [{**examples.example(Item), "status": "done", "doneAt": "2026-11-22T08:00:00.000Z"}],
        "pagination": {"total": 1, "page": 1, "limit": 5, "totalPages": 1, "hasNext": False, "hasPrev": False},
    }


def test_a_request_sends_only_what_has_an_example_and_overrides_may_leave_a_field_out() -> None:
    assert examples.example(Request, request=True) == {"name": "x", "network": "polygon-pos", "part": {"name": "a"}}

    class ByChain(Request):
        example_overrides = {"network": None, "chainId": "137"}

    assert examples.example(ByChain, request=True) == {"name": "x", "chainId": "137", "part": {"name": "a"}}


def test_a_model_class_in_the_overrides_stands_for_its_example() -> None:
    class WithOther(Whole):
        example_overrides = {"maybe": None, "hidden": "shown", "parts": [OtherPart]}

    built = examples.example(WithOther)
    assert built["maybe"] is None and built["hidden"] == "shown" and built["parts"] == [{"size": 3}]


def test_a_required_field_without_an_example_is_an_error_naming_it() -> None:
    class Missing(WireModel):
        amount: str

    with pytest.raises(ValueError, match=r"Missing\.amount has no example"):
        examples.example(Missing)


def test_a_declared_whole_example_is_used_as_it_is() -> None:
    class Declared(BaseModel):
        model_config = {"json_schema_extra": {"examples": [{"a": 1}, {"a": 2}]}}
        a: int

    assert examples.example(Declared) == {"a": 1}


def test_the_examples_do_not_share_state() -> None:
    before = examples.example(ItemPage)
    changed = examples.example(ItemPage)
    changed["data"][0]["tags"].append("changed")
    changed["pagination"]["limit"] = 99
    assert examples.example(ItemPage) == before


# --- the service's models ---------------------------------------------------------------------------------------

# Models that still declare a whole example: none.
DECLARED: set[str] = set()


def _service_models() -> list[type[BaseModel]]:
    from app import app

    app.load_all()  # every route's models

    for module in pkgutil.walk_packages(chalicelib.__path__, "chalicelib."):
        if module.name.endswith(".models"):
            importlib.import_module(module.name)
    found: list[type[BaseModel]] = []
    pending: list[type[BaseModel]] = [WireModel]
    while pending:
        for sub in pending.pop().__subclasses__():
            if sub.__module__.startswith("chalicelib.") and sub not in found:
                found.append(sub)
                pending.append(sub)
    return found


MODELS = _service_models()
PAGES = [m for m in MODELS if set(m.model_fields) == {"data", "pagination"}]


def test_every_model_of_a_route_has_an_example() -> None:
    for spec in ROUTES:
        if spec.body is not None:
            assert examples.example(spec.body, request=True) is not None, spec.path
        if spec.response is not None:
            assert examples.example(spec.response) is not None, spec.path


def test_no_model_declares_a_whole_example() -> None:
    declared = {m.__name__ for m in MODELS if examples.declared_example(m) is not None}
    assert declared <= DECLARED, "give the fields their examples instead (Field(examples=[...]))"


def test_no_module_keeps_a_hand_written_example_dictionary() -> None:
    kept = [
        f"{name}.{attribute}"
        for name, module in list(sys.modules.items())
        if name.startswith("chalicelib")
        for attribute, value in vars(module).items()
        if attribute.startswith("_EXAMPLE_") and isinstance(value, dict | list)
    ]
    assert kept == []


@pytest.mark.parametrize("page", PAGES, ids=[p.__name__ for p in PAGES])
def test_a_page_example_is_its_entrys_own_and_changes_a_few_values(page: type[BaseModel]) -> None:
    """A page's entry is its item model's example; a page overrides a few of its values, never the whole entry."""
    item = _item_of(page)
    built = examples.example(page)
    overrides: dict[str, Any] = dict(getattr(page, "example_overrides", {}))
    (entry,) = built["data"]
    own = examples.example(item)
    changed = set(overrides["data"][0]) if "data" in overrides else set()
    assert set(entry) == set(own) | changed
    assert {k: v for k, v in entry.items() if k not in changed} == {k: v for k, v in own.items() if k not in changed}
    assert len(changed) <= len(own) // 2, f"{page.__name__} restates its entry: override a few values only"
    assert set(built["pagination"]) == set(Pagination.model_fields)


def _item_of(page: type[BaseModel]) -> type[BaseModel]:
    (item,) = page.model_fields["data"].annotation.__args__  # type: ignore[union-attr]
    assert isinstance(item, type) and issubclass(item, BaseModel)
    return item


def test_the_pages_are_found() -> None:
    names = {p.__name__ for p in PAGES}
    assert {"CustodyAccountPage", "DepositPage", "WithdrawalPage", "TransactionPage", "UserOperationPage"} <= names


def test_an_override_of_a_field_the_model_does_not_have_is_an_error() -> None:
    class Typo(Item):
        example_overrides = {"stauts": "done"}

    with pytest.raises(ValueError, match=r"Typo\.example_overrides: no such fields \['stauts'\]"):
        examples.example(Typo)
