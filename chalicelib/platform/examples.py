"""Examples of the wire models, made from their fields' own examples.

A field states its example (`Field(examples=[...])`, pydantic's own, also shown in the field's schema). A model's
example is made of its fields': the field's first example; else a nested model's own example (a list of models: a
one-item list of it; a union: its first model's); else the field's default (left out of a request, which sends
only what it needs); else null for a nullable field. A required field with none of these is an error, so every
model the document shows has a whole example. A model may change a few values of what its fields make with
`example_overrides` (platform/wire.py), e.g. a page whose entry shows another state than the entry's own example.

Built when the OpenAPI document asks for one (platform/openapi.py), never at import.
"""

from __future__ import annotations

import copy
import types
import typing
from collections.abc import Mapping
from typing import Any, get_args, get_origin

from pydantic import BaseModel
from pydantic.fields import FieldInfo

_LEFT_OUT = object()


def example(model: type[BaseModel], *, request: bool = False) -> Any:
    """The model's example: the first one it declares (`json_schema_extra={"examples": [...]}`) if it declares
    one, else the one its fields make. `request`: as a client sends it (fields without an example that have a
    default, and nulls of optional fields, left out); else as the service answers it (every field it sends)."""
    declared = declared_example(model)
    if declared is not None:
        return copy.deepcopy(declared)
    values: dict[str, Any] = {}
    fields: dict[str, FieldInfo] = {}
    for name, info in model.model_fields.items():
        key = (None if request else info.serialization_alias) or info.alias or name
        value = _value(model, name, info, request)
        if value is not _LEFT_OUT:
            values[key] = value
        fields[key] = info
    overrides: Mapping[str, Any] = getattr(model, "example_overrides", None) or {}
    unknown = set(overrides) - set(fields)
    if unknown:
        raise ValueError(f"{model.__name__}.example_overrides: no such fields {sorted(unknown)}")
    values = _merged(values, overrides, request)
    return {key: value for key, value in values.items() if not _left_out(fields[key], value, request)}


def declared_example(model: type[BaseModel]) -> Any:
    """The first example the model declares as a whole (`json_schema_extra={"examples": [...]}`), or None."""
    extra = model.model_config.get("json_schema_extra")
    declared = extra.get("examples") if isinstance(extra, dict) else None
    return declared[0] if isinstance(declared, list) and declared else None


def _value(model: type[BaseModel], name: str, info: FieldInfo, request: bool) -> Any:
    if info.examples:
        return copy.deepcopy(info.examples[0])
    nested, listed = _nested_model(info.annotation)
    if nested is not None:
        built = example(nested, request=request)
        return [built] if listed else built
    if not info.is_required():
        return _LEFT_OUT if request else info.get_default(call_default_factory=True, validated_data={})
    if _nullable(info.annotation):
        return None
    raise ValueError(f"{model.__name__}.{name} has no example: give it Field(examples=[...])")


def _left_out(info: FieldInfo, value: Any, request: bool) -> bool:
    """A request leaves out the nulls of optional fields; an answer leaves out what its serializer would."""
    if request:
        return value is None and not info.is_required()
    return info.exclude is True or (info.exclude_if is not None and bool(info.exclude_if(value)))


def _merged(base: Any, change: Any, request: bool) -> Any:
    """`base` with `change` over it: a mapping key by key, a list of the same length item by item; a model class
    in `change` stands for its example."""
    if isinstance(change, type) and issubclass(change, BaseModel):
        return example(change, request=request)
    if isinstance(change, Mapping):
        merged = dict(base) if isinstance(base, dict) else {}
        for key, value in change.items():
            merged[key] = _merged(merged.get(key, _LEFT_OUT), value, request)
        return merged
    if isinstance(change, list):
        if isinstance(base, list) and len(base) == len(change):
            return [_merged(b, c, request) for b, c in zip(base, change, strict=True)]
        return [_merged(_LEFT_OUT, c, request) for c in change]
    return copy.deepcopy(change)


def _nested_model(annotation: Any) -> tuple[type[BaseModel] | None, bool]:
    """The model a field holds (its first one in a union) and whether it holds a list of them."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation, False
    origin = get_origin(annotation)
    if origin is list:
        (item,) = get_args(annotation) or (None,)
        model, _ = _nested_model(item)
        return model, model is not None
    if origin in (typing.Union, types.UnionType):
        for arg in get_args(annotation):
            model, listed = _nested_model(arg)
            if model is not None:
                return model, listed
    return None, False


def _nullable(annotation: Any) -> bool:
    return get_origin(annotation) in (typing.Union, types.UnionType) and type(None) in get_args(annotation)
