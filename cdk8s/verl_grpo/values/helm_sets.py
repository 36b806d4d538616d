"""Helm's --set family (--set, --set-string, --set-json, --set-file, --set-literal), read as Helm reads
it: a port of Helm's pkg/strvals (parser.go and literal_parser.go, helm.sh/helm/v4@v4.1.4) and of
the order in which `helm install` applies the flags (pkg/cli/values/options.go MergeValues: every
--set-json, then --set, --set-string, --set-file, --set-literal, each in command-line order, not
the order they were typed in). So a string means on the CLI what it means to Helm, with no Go on
the user's machine: `a=0.00001` is the string "0.00001" (Helm types only integers, booleans and
null), `l[0].k=x` edits the first element of the list the -f files gave, `a=null` deletes.

Held equal to Helm's own parser, built from the module (tools/helm-strvals), by a differential
property test (tests/values/test_helm_sets.py), and to `helm template` on the same strings.

A set expression travels as one string: plain for --set, or `<flag>\\0<expression>` for the
others (NUL never appears in an argument, so no expression can be mistaken for a tag).
"""

from __future__ import annotations

import contextlib
import json
import re
from collections.abc import Callable, Iterable
from decimal import Decimal
from typing import Any

from ..problems import VALUES, Problems, error

SET_FLAGS = ("--set", "--set-string", "--set-json", "--set-file", "--set-literal")
# MergeValues' order (pkg/cli/values/options.go@v4.1.4).
ORDER = ("--set-json", "--set", "--set-string", "--set-file", "--set-literal")
_TAG = "\0"

# parser.go: MaxIndex, MaxNestedNameLevel.
MAX_INDEX = 65536
MAX_NESTED_NAME_LEVEL = 30
INT64 = 2**63


def tagged(flag: str, expression: str) -> str:
    """One set expression of `flag` (one of SET_FLAGS), as `sets` carry it."""
    assert flag in SET_FLAGS, flag
    return expression if flag == "--set" else f"{flag}{_TAG}{expression}"


SET_STRING = tagged("--set-string", "")  # prefix: SET_STRING + "a=1" is --set-string a=1


def untagged(item: str) -> tuple[str, str]:
    flag, tag, expression = item.partition(_TAG)
    return (flag, expression) if tag else ("--set", item)


class ParseError(Exception):
    """An error strvals returns, in its words."""


class _End(Exception):
    """io.EOF, or an error that wraps it ("error parsing index: EOF"): strvals' parse loop takes
    it for the end of the input and returns without an error, keeping what was set."""


class _Panic(Exception):
    """A Go runtime panic inside strvals (a failed type assertion), which its `key` recovers."""


_GO_ESCAPES = {"\a": "\\a", "\b": "\\b", "\f": "\\f", "\n": "\\n", "\r": "\\r", "\t": "\\t", "\v": "\\v"}


def _go_rune(r: str, quote: str) -> str:
    """One rune as strconv.Quote (quote '"') or QuoteRune (quote "'") writes it."""
    if r in (quote, "\\"):
        return "\\" + r
    if r in _GO_ESCAPES:
        return _GO_ESCAPES[r]
    if r.isprintable():
        return r
    code = ord(r)
    return f"\\x{code:02x}" if code < 0x80 else f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


def go_quote(text: str) -> str:
    """Go's %q of a string."""
    return '"' + "".join(_go_rune(r, '"') for r in text) + '"'


def go_quote_runes(text: str) -> str:
    """Go's %q of a []rune: each rune single-quoted, space-separated, in brackets."""
    return "[" + " ".join(f"'{_go_rune(r, chr(39))}'" for r in text) + "]"


def _go_type(value: Any) -> str:
    if value is None:
        return "nil"
    if isinstance(value, bool | str | dict | list):
        return {dict: "map[string]interface {}", list: "[]interface {}", str: "string", bool: "bool"}[
            type(value)
        ]
    return "float64" if isinstance(value, float) else "int64"


def _assert(value: Any, kind: type) -> Any:
    """Go's `value.(T)` for a map or a list: a panic when the value is of another type."""
    if not isinstance(value, kind):
        want = _go_type(kind())
        raise _Panic(f"interface conversion: interface {{}} is {_go_type(value)}, not {want}")
    return value


DIGITS = re.compile(r"[+-]?[0-9]+")


def _atoi(text: str) -> int:
    """strconv.Atoi, with its error text."""
    if not DIGITS.fullmatch(text):
        raise ParseError(f"strconv.Atoi: parsing {go_quote(text)}: invalid syntax")
    number = int(text)
    if not -INT64 <= number < INT64:
        raise ParseError(f"strconv.Atoi: parsing {go_quote(text)}: value out of range")
    return number


def typed(text: str, as_string: bool) -> Any:
    """parser.go typedVal: true, false and null in any case (strings.EqualFold), and base-10 int64s
    not starting with 0 (but 0 itself); anything else stays a string."""
    if as_string:
        return text
    folded = text.casefold()
    if folded in ("true", "false"):
        return folded == "true"
    if folded == "null":
        return None
    if text == "0":
        return 0
    if text[:1] not in ("", "0") and DIGITS.fullmatch(text) and -INT64 <= int(text) < INT64:
        return int(text)
    return text


def _go_number(text: str) -> int | float:
    """A JSON number as Go decodes it (float64) and writes it back (helm-strvals' output, Helm's
    toJson): the shortest decimal of the float64, integral values below 1e21 without a fraction."""
    value = float(text)
    if value.is_integer() and abs(value) < 1e21:
        return int(Decimal(repr(value)))
    return value


def _no_constant(name: str) -> Any:
    raise ValueError(f"invalid character {name[0]!r} looking for beginning of value")  # Go's JSON has no NaN


_JSON = json.JSONDecoder(parse_int=_go_number, parse_float=_go_number, parse_constant=_no_constant)
_EOF = ""


class _Scanner:
    def __init__(self, text: str) -> None:
        self.text, self.at = text, 0

    def read(self) -> str:
        """The next rune, or _EOF."""
        if self.at >= len(self.text):
            return _EOF
        self.at += 1
        return self.text[self.at - 1]

    def unread(self) -> None:
        self.at -= 1

    def until(self, stop: str, escapes: bool = True) -> tuple[str, str]:
        """runesUntil (escapes: a backslash takes the next rune as it is) or runesUntilLiteral: the
        runes before a stop rune, and that rune (_EOF at the end)."""
        out: list[str] = []
        while True:
            r = self.read()
            if r == _EOF or r in stop:
                return "".join(out), r
            if r == "\\" and escapes:
                r = self.read()
                if r == _EOF:
                    return "".join(out), r
            out.append(r)


Reader = Callable[[str], Any]


class _Parser:
    """parser.go's parser: values typed by `reader`, or JSON (reader None), or literal
    (literal_parser.go: no escapes, no lists of values, the value is the rest of the input)."""

    def __init__(self, text: str, data: dict[str, Any], reader: Reader | None, literal: bool = False):
        self.sc, self.data, self.reader, self.literal = _Scanner(text), data, reader, literal
        self.json = reader is None and not literal

    def parse(self) -> None:
        try:
            while True:
                self.key(self.data, 0)
        except _End:
            return

    def key(self, data: dict[str, Any], level: int) -> None:
        try:
            self._key(data, level)
        except _Panic as panic:  # key's deferred recover
            raise ParseError(f"unable to parse key: {panic}") from None

    def _until(self, stop: str) -> tuple[str, str]:
        return self.sc.until(stop, escapes=not self.literal)

    def _key(self, data: dict[str, Any], level: int) -> None:
        k, last = self._until("=[." if self.literal else "=[,.")
        if last == _EOF:
            if not k:
                raise _End
            raise ParseError(f"key {go_quote(k)} has no value")
        if last == "[":
            i = self._index()
            items = _assert(data[k], list) if k in data else []
            try:
                items = self.list_item(items, i, level)
            finally:
                _set(data, k, items)
        elif last == "=":
            self._value(lambda v: _set(data, k, v))
        elif last == ",":
            _set(data, k, "")
            raise ParseError(f"key {go_quote(k)} has no value (cannot end with ,)")
        else:  # "."
            level += 1
            if level > MAX_NESTED_NAME_LEVEL:
                raise ParseError(
                    "value name nested level is greater than maximum supported nested level of "
                    f"{MAX_NESTED_NAME_LEVEL}"
                )
            inner = _assert(data[k], dict) if k in data else {}
            try:
                self.key(inner, level)
            finally:
                if inner:
                    _set(data, k, inner)
            if not inner:
                raise ParseError(f"key map {go_quote(k)} has no value")

    def _value(self, put: Callable[[Any], None]) -> None:
        """After `=`: the value, given to `put`."""
        if self.literal:
            put(self.sc.until("", escapes=False)[0])
        elif self.json:
            if self._empty():
                put(None)
            else:
                put(self._json())
                self._empty()  # spaces and the comma after the value
        else:
            first = self.sc.read()
            if first == _EOF:  # nothing after `=`: the empty string, and the end
                put("")
                raise _End
            if first == "{":
                put(self._list())
            else:
                self.sc.unread()
                assert self.reader is not None
                put(self.reader(self.sc.until(",")[0]))

    def _list(self) -> list[Any]:
        """valList after its `{`: the items up to `}` (and a `,` after it)."""
        assert self.reader is not None
        items: list[Any] = []
        while True:
            text, last = self.sc.until(",}")
            if last == _EOF:
                raise ParseError("list must terminate with '}'")
            if last == "}":
                if self.sc.read() not in (",", _EOF):
                    self.sc.unread()
                items.append(self.reader(text))
                return items
            items.append(self.reader(text))

    def _json(self) -> Any:
        rest = self.sc.text[self.sc.at :]
        start = len(rest) - len(rest.lstrip(" \t\r\n"))
        try:
            value, end = _JSON.raw_decode(rest, start)
        except ValueError as e:
            raise ParseError(str(e)) from None
        self.sc.at += end
        return value

    def _empty(self) -> bool:
        """emptyVal: spaces up to a `,` or the end (consumed), else False (nothing consumed)."""
        while True:
            r = self.sc.read()
            if r in (_EOF, ","):
                return True
            if not r.isspace():
                self.sc.unread()
                return False

    def _index(self) -> int:
        text, last = self._until("]")
        if last == _EOF:
            raise _End  # "error parsing index: EOF" wraps io.EOF
        try:
            return _atoi(text)
        except ParseError as e:
            raise ParseError(f"error parsing index: {e}") from None

    def list_item(self, items: list[Any], i: int, level: int) -> list[Any]:
        if i < 0:
            raise ParseError(f"negative {i} index not allowed")
        k, last = self._until("[.=")
        if k:
            raise ParseError(f"unexpected data at end of array index: {go_quote_runes(k)}")
        if last == _EOF:
            raise _End
        if last == "=":
            found: list[Any] = []
            with contextlib.suppress(_End):  # `l[0]=` at the end: the empty string, set all the same
                self._value(found.append)
            return _set_index(items, i, found[0])
        if last == "[":
            j = self._index()
            nested = []
            if len(items) > i and items[i] is not None:
                nested = _assert(items[i], list)
            return _set_index(items, i, self.list_item(nested, j, level))
        inner: dict[str, Any] = {}  # "."
        if len(items) > i:
            if not isinstance(items[i], dict):
                items[i] = {}  # "indices out of order"
            inner = items[i]
        self.key(inner, level)
        return _set_index(items, i, inner)


def _set(data: dict[str, Any], key: str, value: Any) -> None:
    if key:
        data[key] = value


def _set_index(items: list[Any], i: int, value: Any) -> list[Any]:
    if i < 0:
        raise ParseError(f"negative {i} index not allowed")
    if i > MAX_INDEX:
        raise ParseError(f"index of {i} is greater than maximum supported index of {MAX_INDEX}")
    if len(items) <= i:
        items = items + [None] * (i + 1 - len(items))
    items[i] = value
    return items


def _read_file(text: str) -> str:
    """MergeValues' --set-file reader for local paths (Helm's URL getters are left out), with Go's
    words for what fails: os.ReadFile opens a folder and fails reading it."""
    try:
        with open(text, "rb") as f:
            return f.read().decode("utf-8", errors="replace")
    except IsADirectoryError:
        raise ParseError(f"read {text}: is a directory") from None
    except OSError as e:
        raise ParseError(f"open {text}: {(e.strerror or str(e)).lower()}") from None


def _merge_maps(a: dict[str, Any], b: dict[str, Any]) -> None:
    """loader.MergeMaps (pkg/chart/v2/loader/load.go@v4.1.4) into `a`: maps merge, else b replaces."""
    for k, v in b.items():
        if isinstance(v, dict) and isinstance(a.get(k), dict):
            inner = dict(a[k])
            _merge_maps(inner, v)
            a[k] = inner
        else:
            a[k] = v


def _parse(flag: str, text: str, base: dict[str, Any]) -> None:
    """MergeValues' branch for each flag, with its error wording."""
    if flag == "--set-json":
        trimmed = text.strip()
        if trimmed.startswith("{"):
            try:
                whole = _JSON.decode(trimmed)
            except json.JSONDecodeError:
                raise ParseError(f"failed parsing --set-json data JSON: {text}") from None
            if not isinstance(whole, dict):
                raise ParseError(f"failed parsing --set-json data JSON: {text}")
            _merge_maps(base, whole)
            return
        try:
            _Parser(text, base, None).parse()
        except ParseError:
            raise ParseError(f"failed parsing --set-json data {text}") from None
        return
    readers: dict[str, Reader] = {
        "--set": lambda v: typed(v, False),
        "--set-string": lambda v: typed(v, True),
        "--set-file": _read_file,
    }
    try:
        _Parser(text, base, readers.get(flag), literal=flag == "--set-literal").parse()
    except ParseError as e:
        raise ParseError(f"failed parsing {flag} data: {e}") from None


def apply_sets(base: dict[str, Any], sets: Iterable[str]) -> dict[str, Any]:
    """`base` (the merged -f files) with the set expressions applied, as Helm applies them."""
    out = json.loads(json.dumps(base, default=str))  # a copy, as Helm's JSON would see it
    given = [untagged(item) for item in sets]
    try:
        for flag in ORDER:
            for kind, text in given:
                if kind == flag:
                    _parse(flag, text, out)
    except ParseError as e:
        message = str(e)
        raise Problems([error(VALUES, _flag_of(message), message)]) from None
    return out


def _flag_of(message: str) -> str:
    """The flag Helm's message names ("failed parsing --set-json data ..."), for the problem's key."""
    named = [f for f in SET_FLAGS if f"{f} data" in message]
    return max(named, key=len) if named else "--set"
