"""Where and why bytes are not JSON that msgspec decodes, found by the project's own means.

msgspec decodes every input; when it fails, its message is not read (a release may word it anew or drop
its position). Instead `find_json_problem` looks again, on the failure path only: Python's UTF-8 codec
gives the first invalid byte (`UnicodeDecodeError.start`), Python's `json` the place of a syntax error
(`JSONDecodeError.pos`), and one scan of the tokens the place of what `json` accepts but msgspec does
not (``NaN``, ``Infinity``, a number too large for a float or an integer longer than Python reads, an
escaped surrogate without its pair).
"""

from __future__ import annotations

import json
import math
import re
import sys
from typing import NamedTuple

_JSON_SPACE = " \t\n\r"
# A string, a bare constant or a number, in a text Python's json has accepted.
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|(-?Infinity|NaN)|(-?\d+(?:\.\d*)?(?:[eE][-+]?\d+)?)', re.DOTALL)
_INT_DIGITS = sys.get_int_max_str_digits()  # 0: no limit
_SURROGATE = re.compile(r"\\u[dD][89a-fA-F]", re.ASCII)


class JsonProblem(NamedTuple):
    """What is wrong (`problem`, in our words) and where: the byte offset in the data, None when unknown."""

    problem: str
    offset: int | None
    utf8: bool = False  # the data is not UTF-8 text (`offset` is the first invalid byte)


class _NotJson(Exception):
    """A value Python's json accepts but JSON does not (raised from its hooks; located by `_token_problem`)."""


def _reject(_: str) -> float:
    raise _NotJson


def _finite(text: str) -> float:
    value = float(text)
    if math.isinf(value):
        raise _NotJson
    return value


_STRICT = json.JSONDecoder(parse_constant=_reject, parse_float=_finite)


def find_json_problem(data: bytes) -> JsonProblem:
    """The first reason `data` is not one JSON value in UTF-8, with its byte offset; `problem` is ``""``
    when Python finds none (the data is JSON; what failed was a type or a limit of the decoder)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        return JsonProblem("not UTF-8 text", error.start, utf8=True)
    body = text.lstrip(_JSON_SPACE)
    start = len(text) - len(body)
    if not body:
        return JsonProblem("there is no JSON value", len(data))
    try:
        _, end = _STRICT.raw_decode(body)
    except _NotJson:
        return _token_problem(text)
    except json.JSONDecodeError as error:
        at, last = start + error.pos, len(text.rstrip(_JSON_SPACE))
        if at >= last:  # the place just after the last character
            return JsonProblem("the data ends before the JSON value does", _byte_offset(text, last))
        before = text[:at].rstrip(_JSON_SPACE)
        if text[at] in "]}" and before.endswith(","):
            return JsonProblem(f"a comma before the closing {text[at]!r}", _byte_offset(text, at))
        return JsonProblem(f"unexpected {text[at]!r}", _byte_offset(text, at))
    except ValueError:  # e.g. an integer of more digits than Python converts
        return _token_problem(text)
    end += start
    rest = len(text) - len(text[end:].lstrip(_JSON_SPACE))
    if rest < len(text):
        return JsonProblem("more data after the JSON value", _byte_offset(text, rest))
    return _token_problem(text)


def _token_problem(text: str) -> JsonProblem:
    """The first constant, overflowing number or unpaired escaped surrogate of a text json accepted."""
    for token in _TOKEN.finditer(text):
        constant, number = token.group(1), token.group(2)
        if constant is not None:
            return JsonProblem(f"{constant} is not a JSON value", _byte_offset(text, token.start()))
        if number is not None:
            if any(mark in number for mark in ".eE"):
                if math.isinf(float(number)):
                    return JsonProblem("a number too large for a float", _byte_offset(text, token.start()))
            elif 0 < _INT_DIGITS < len(number.lstrip("-")):
                problem = f"an integer of more than {_INT_DIGITS} digits (Python's limit)"
                return JsonProblem(problem, _byte_offset(text, token.start()))
            continue
        if _SURROGATE.search(token.group()) is not None and _unpaired_surrogate(token.group()):
            return JsonProblem("an escaped surrogate without its pair", _byte_offset(text, token.start()))
    return JsonProblem("", None)


def _unpaired_surrogate(string_token: str) -> bool:
    try:
        json.loads(string_token).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _byte_offset(text: str, index: int) -> int:
    return index if text.isascii() else len(text[:index].encode("utf-8"))
