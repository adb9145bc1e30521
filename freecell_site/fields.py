"""Request fields that take a JSON value only of their own type, as the websocket's frames do.

DRF's fields coerce: IntegerField takes "0", 1.0 and "1.0" as 0 and 1, CharField takes 12345678 as
"12345678", ChoiceField and EmailField take whatever stringifies. So `{"ply": "0"}` played a move over
REST that the socket refused as `bad_frame`, and `{"username": 12345678}` signed up. Every request
serializer builds on these instead, so a value of the wrong type is `invalid_request` (400, with the
field named) and nothing is stored. A form or multipart body can only carry strings: there an integer
is taken only as a plain decimal ("0", "-3"; not "1.0", " 0", "+0" or "0x0").
"""

from __future__ import annotations

import re

from django.http import QueryDict
from rest_framework import serializers

_DECIMAL = re.compile(r"-?(?:0|[1-9][0-9]{0,17})")


def _from_form(field: serializers.Field) -> bool:
    """Whether the body being validated came from a form (every value a string), not from JSON."""
    return isinstance(getattr(field.root, "initial_data", None), QueryDict)


class StrictStringMixin:
    """A JSON string and nothing else (not a number, a boolean, a list or an object)."""

    default_error_messages = {"not_string": "must be a string, not {kind}"}

    def to_internal_value(self, data):
        if not isinstance(data, str):
            self.fail("not_string", kind=_kind(data))
        return super().to_internal_value(data)


class StrictCharField(StrictStringMixin, serializers.CharField):
    pass


class StrictEmailField(StrictStringMixin, serializers.EmailField):
    pass


class StrictChoiceField(StrictStringMixin, serializers.ChoiceField):
    pass


class StrictChoiceListField(serializers.Field):
    """A JSON list of distinct strings, each one of `choices` (a form repeats the field's name). Checked
    whole, so that a refusal is a list of messages as every field's is: DRF's ListField keys a refused
    item by its index ({"0": [...]}), which the error shape's `fields` does not allow."""

    default_error_messages = {
        "not_list": "must be a list of strings, not {kind}",
        "empty": "name at least one",
        "unknown": "not one of {choices}: {given}",
        "repeated": "{given} is named twice",
    }

    def __init__(self, *, choices, **kwargs):
        self.choices = list(choices)
        super().__init__(**kwargs)

    def get_value(self, dictionary):
        if isinstance(dictionary, QueryDict):
            return dictionary.getlist(self.field_name) if self.field_name in dictionary else serializers.empty
        return super().get_value(dictionary)

    def to_internal_value(self, data) -> list[str]:
        if not isinstance(data, list):
            self.fail("not_list", kind=_kind(data))
        odd = [item for item in data if not isinstance(item, str)]
        if odd:
            self.fail("not_list", kind=f"a list holding {_kind(odd[0])}")
        if not data:
            self.fail("empty")
        unknown = [item for item in data if item not in self.choices]
        if unknown:
            self.fail("unknown", choices=", ".join(self.choices), given=", ".join(repr(item[:20]) for item in unknown[:4]))
        repeated = next((item for index, item in enumerate(data) if item in data[:index]), None)
        if repeated is not None:
            self.fail("repeated", given=repr(repeated))
        return list(data)

    def to_representation(self, value) -> list[str]:
        return list(value)


class StrictIntegerField(serializers.IntegerField):
    """A JSON integer: not a boolean (Python's True is 1), not a number with a fraction or an exponent
    (1.0, 1e0), not a string of digits."""

    default_error_messages = {"not_integer": "must be a whole number (a JSON integer), not {kind}"}

    def to_internal_value(self, data):
        if isinstance(data, int) and not isinstance(data, bool):
            return data  # min_value and max_value are validators: they run after this
        if isinstance(data, str) and _from_form(self) and _DECIMAL.fullmatch(data):
            return int(data)
        self.fail("not_integer", kind=_kind(data))


class StrictBooleanField(serializers.BooleanField):
    """A JSON boolean: not 1, "true" or "yes" (DRF's BooleanField takes them all). A form's "true" and
    "false" are taken."""

    default_error_messages = {"not_boolean": "must be true or false (a JSON boolean), not {kind}"}

    def to_internal_value(self, data):
        if isinstance(data, bool):
            return data
        if isinstance(data, str) and _from_form(self) and data in ("true", "false"):
            return data == "true"
        self.fail("not_boolean", kind=_kind(data))


def _kind(value) -> str:
    """The JSON type of a parsed value, as an API user would name it."""
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "a number"
    if isinstance(value, float):
        return "a number written with a fraction or an exponent" if value.is_integer() else "a number with a fraction"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    if value is None:
        return "null"
    return "a file" if hasattr(value, "read") else type(value).__name__  # a multipart upload
