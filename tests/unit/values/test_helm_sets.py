"""values/helm_sets.py: Helm's strvals in Python. The cases are Helm's own
(pkg/strvals/parser_test.go TestParseSet and literal_parser_test.go, helm.sh/helm/v4@v4.1.4),
expected values as Helm's tests state them; the whole family is held equal to Helm's parser
itself by tests/values/test_helm_sets.py."""

from __future__ import annotations

import pytest

from verl_grpo.problems import Problems
from verl_grpo.values.helm_sets import apply_sets, tagged

PARSED = [
    ("name1=null,f=false,t=true", {"name1": None, "f": False, "t": True}),
    ("name1=value1,name2=value2,", {"name1": "value1", "name2": "value2"}),
    ("name1=,name2=value2", {"name1": "", "name2": "value2"}),
    ("leading_zeros=00009", {"leading_zeros": "00009"}),
    ("zero_int=0,long_int=1234567890", {"zero_int": 0, "long_int": 1234567890}),
    ("TRUE=True,decimal=0.00001", {"TRUE": True, "decimal": "0.00001"}),
    (r"name1=one\,two,name2=three\,four", {"name1": "one,two", "name2": "three,four"}),
    ("name1=one=two", {"name1": "one=two"}),
    ("outer.middle.inner=value", {"outer": {"middle": {"inner": "value"}}}),
    ("name1.name2=", {"name1": {"name2": ""}}),
    ("name1={value1,value2},name2={1021,902}", {"name1": ["value1", "value2"], "name2": [1021, 902]}),
    ("list[0].foo=bar,list[0].hello=world", {"list": [{"foo": "bar", "hello": "world"}]}),
    ("list[0]=foo,list[3]=bar", {"list": ["foo", None, None, "bar"]}),
    ("noval[0]", {"noval": []}),
    ("noval[0]=", {"noval": [""]}),
    ("nested[1][1]=1", {"nested": [None, [None, 1]]}),
    ("name1.name2[1].foo=bar", {"name1": {"name2": [None, {"foo": "bar"}]}}),
]

REFUSED = [
    ("name1=value1,,,,name2=value2,", 'key "" has no value (cannot end with ,)'),
    ("name1,name2=", 'key "name1" has no value (cannot end with ,)'),
    ("name1.name2", 'key "name2" has no value'),
    ("name1.=name2", 'key map "name1" has no value'),
    ("name1={1021,902", "list must terminate with '}'"),
    ("list[0].foo=bar,list[-30].hello=world", "negative -30 index not allowed"),
    ("illegal[0]name.foo=bar", "unexpected data at end of array index: ['n' 'a' 'm' 'e']"),
    ("list[x]=1", 'error parsing index: strconv.Atoi: parsing "x": invalid syntax'),
    (
        "a=1,a.b=2",
        "unable to parse key: interface conversion: interface {} is int64, not map[string]interface {}",
    ),
]


@pytest.mark.parametrize(("text", "expected"), PARSED)
def test_set_reads_as_helm_does(text: str, expected: dict) -> None:
    assert apply_sets({}, [text]) == expected


@pytest.mark.parametrize(("text", "message"), REFUSED)
def test_set_refuses_in_helms_words(text: str, message: str) -> None:
    with pytest.raises(Problems) as refused:
        apply_sets({}, [text])
    (problem,) = refused.value.problems
    assert (problem.key, problem.message) == ("--set", f"failed parsing --set data: {message}")


def test_set_string_types_nothing_and_set_literal_takes_the_rest_as_it_is() -> None:
    assert apply_sets({}, [tagged("--set-string", "a=1,b=true,c=null")]) == {
        "a": "1",
        "b": "true",
        "c": "null",
    }
    assert apply_sets({}, [tagged("--set-literal", r"a.b=c,d={e}\,f")]) == {"a": {"b": r"c,d={e}\,f"}}


def test_set_json_decodes_each_value_as_go_does() -> None:
    # Go's JSON numbers are float64s, written back without a fraction where integral.
    out = apply_sets({}, [tagged("--set-json", 'a=1.0,b=[1,{"c":null}],c= ,d="x",e=12345678901234567890')])
    assert out == {"a": 1, "b": [1, {"c": None}], "c": None, "d": "x", "e": 12345678901234567000}
    assert isinstance(out["a"], int)
    assert apply_sets({"w": {"x": 1, "y": 2}}, [tagged("--set-json", '{"w":{"y":3}}')]) == {
        "w": {"x": 1, "y": 3}
    }
    with pytest.raises(Problems, match="failed parsing --set-json data a=NaN"):
        apply_sets({}, [tagged("--set-json", "a=NaN")])


def test_the_flags_apply_in_helms_order_not_as_typed(tmp_path) -> None:
    text = tmp_path / "f.txt"
    text.write_text("from a file\n")
    sets = [
        tagged("--set-literal", "e=5"),
        tagged("--set-file", f"e={text},d={text}"),
        tagged("--set-string", "e=3,d=3"),
        "e=2,d=2,c=2",
        tagged("--set-json", "e=1,d=1,c=1,b=1"),
    ]
    assert apply_sets({"a": 0}, sets) == {"a": 0, "b": 1, "c": 2, "d": "from a file\n", "e": "5"}


def test_a_list_index_edits_the_files_list() -> None:
    base = {"l": [{"k": "a", "v": 1}, {"k": "b"}]}
    assert apply_sets(base, ["l[1].k=x"]) == {"l": [{"k": "a", "v": 1}, {"k": "x"}]}
    assert base["l"][1]["k"] == "b"  # the caller's tree is not changed
