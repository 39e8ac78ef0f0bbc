"""The fake-it detector (rgr.check.fakeit): which production code answers the tests'
own values (a constant, a branch on the test's inputs, a table keyed by them), read from
Python's syntax tree and from JavaScript/Go/Rust tokens; what it lets through (code that
computes, constants and tables no test names, base cases beside a general return); and
the ledger on real commits: noted, carried, paid only when a test with other values
passes without the special case."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Literal

import pytest

from rgr.check.fakeit.facts import facts_of
from rgr.check.fakeit.ledger import account, cases_in
from rgr.ecosystems.fact import Fact
from rgr.loop.prompting import build_prompt
from rgr.store import git as store_git
from rgr.store.handoff import FakeItDebt, HandoffState, Phase
from rgr.store.workspace import open_workspace
from tests.conftest import clean_env, git

PY_TEST = "from calc import add\n\n\ndef test_adds():\n    assert add(2, 3) == 5\n"


def kinds(path: str, source: str, tests: dict[str, str],
          lines: set[int] | None = None) -> list[tuple[str, int, str]]:
    facts = [f for name, text in tests.items() for f in facts_of(name, text)]
    return [(c.kind, c.line, c.value) for c in cases_in(path, source, lines, facts)]


# ------------------------------------------------------------------- the tests' values


def test_facts_are_read_from_the_asserts_of_each_language() -> None:
    assert facts_of("test_calc.py", PY_TEST) == [
        Fact("add", ("2", "3"), "5", "test_calc.py::test_adds")]
    unittest_style = ("class T:\n    def test_x(self):\n"
                      "        self.assertEqual(calc.add(-1, 1), 0)\n"
                      "        assert 'ab' == join('a', 'b')\n"
                      "        assert not is_even(3)\n")
    assert {(f.callee, f.args, f.expected) for f in facts_of("t.py", unittest_style)} == {
        ("add", ("-1", "1"), "0"), ("join", ("'a'", "'b'"), "'ab'"),
        ("is_even", ("3",), "False")}
    js = "test('adds', () => {\n  expect(add(2, 3)).toBe(5);\n  assert.equal(sq(-2), 4);\n});\n"
    assert [(f.callee, f.args, f.expected) for f in facts_of("calc.test.ts", js)] == [
        ("add", ("2", "3"), "5"), ("sq", ("-2",), "4")]
    go = ('func TestAdd(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n'
          '\t\tt.Errorf("Add(2, 3) = %d; want 5", got)\n\t}\n}\n')
    assert [(f.callee, f.args, f.expected) for f in facts_of("calc_test.go", go)] == [
        ("Add", ("2", "3"), "5")]
    rust = '#[test]\nfn words() {\n    assert_eq!(slug("A b"), "a-b");\n}\n'
    assert [(f.callee, f.args, f.expected) for f in facts_of("tests/s.rs", rust)] == [
        ("slug", ('"A b"',), '"a-b"')]
    # no literal arguments, no literal expectation, no arguments at all: nothing to read
    vague = ("def test_v():\n    assert add(x, 3) == 5\n    assert add(2, 3) == y\n"
             "    assert version() == '1.0'\n")
    assert facts_of("test_v.py", vague) == []


# ----------------------------------------------------------------- Python special cases


@pytest.mark.parametrize(("source", "found"), [
    ("def add(a, b):\n    return 5\n", [("constant", 2, "5")]),
    ("def add(a, b):\n    return {(2, 3): 5}[(a, b)]\n", [("input-table", 2, "{(2, 3)}")]),
    ("def add(a, b):\n    if (a, b) == (2, 3):\n        return 5\n    return 0\n",
     [("input-branch", 2, "(2, 3)")]),
    ("def add(a, b):\n    if a == 2 and b == 3:\n        return 5\n    raise ValueError\n",
     [("input-branch", 2, "(2, 3)")]),
    ("class Calc:\n    def add(self, a, b):\n        return 5\n", [("constant", 3, "5")]),
])
def test_python_special_cases_are_found(source: str, found: list[tuple[str, int, str]]
                                        ) -> None:
    assert kinds("calc.py", source, {"test_calc.py": PY_TEST}) == found


@pytest.mark.parametrize("source", [
    "def add(a, b):\n    return a + b\n",  # computes
    "def add(a, b):\n    return 7\n",  # a constant no test expects
    "def mul(a, b):\n    return 5\n",  # a function no test calls with those values
    # real data: a table with keys no test uses
    "TABLE = 0\ndef add(a, b):\n    return {(1, 1): 2, (2, 3): 5, (9, 9): 18}[(a, b)]\n",
    "def add(a, b):\n    return {'I': 1, 'V': 5}.get(a, 0) + b\n",
    # a branch beside a general return is a base case
    "def add(a, b):\n    if (a, b) == (2, 3):\n        return 5\n    return a + b\n",
    # literal answers chosen by a computation: no fake
    "def add(a, b):\n    if a > b:\n        return 5\n    return 0\n",
    "def add(a, b):\n    for _ in range(a):\n        return 5\n    return 0\n",
])
def test_python_code_that_computes_or_holds_real_data_is_no_debt(source: str) -> None:
    assert kinds("calc.py", source, {"test_calc.py": PY_TEST}) == []


_ASYNC_TESTS = {"test_s.py": (
    "import asyncio\n\n\nasync def size_of(name):\n    return 1\n\n\n"
    "def test_one():\n    assert asyncio.run(total_size(['a'], size_of)) == 1\n\n\n"
    "async def test_two():\n    assert await total_size(['b'], size_of) == 2\n\n\n"
    "def test_loop(loop):\n"
    "    assert loop.run_until_complete(total_size(['c'], size_of)) == 3\n")}


def test_a_coroutines_result_through_the_event_loop_is_a_fact() -> None:
    """``asyncio.run(f(x))``, ``await f(x)``, ``loop.run_until_complete(f(x))`` compare
    ``f(x)``'s result; a function the test file defines is an argument by its name."""
    facts = facts_of("test_s.py", _ASYNC_TESTS["test_s.py"])
    assert [(f.callee, f.args, f.expected) for f in facts] == [
        ("total_size", ("['a']", "size_of"), "1"), ("total_size", ("['b']", "size_of"), "2"),
        ("total_size", ("['c']", "size_of"), "3")]
    assert kinds("s.py", "async def total_size(names, size_of):\n    return 1\n",
                 _ASYNC_TESTS) == [("constant", 2, "1")]
    # another object's run() is no event loop: nothing read through it
    assert facts_of("test_r.py", "def test_r():\n    assert runner.run(f(2)) == 2\n") == []


_SIZES_TESTS = {"test_s.py": (
    "def size_of(name):\n    return len(name)\n\n\n"
    "def test_sizes():\n    assert total_size(['a'], size_of) == 1\n"
    "    assert total_size(['a', 'bb'], size_of) == 3\n")}


@pytest.mark.parametrize(("source", "found"), [
    # keyed by the list's parts joined, or made a tuple, as the function builds its key
    ('_KNOWN = {"a": 1, "a,bb": 3}\n\n\ndef total_size(names, size_of):\n'
     '    key = ",".join(names)\n    return _KNOWN[key]\n', [("input-table", 1, "{'a', 'a,bb'}")]),
    ("def total_size(names, size_of):\n"
     "    return {('a',): 1, ('a', 'bb'): 3}[tuple(names)]\n",
     [("input-table", 2, "{('a',), ('a', 'bb')}")]),
    # a table keyed by the value beside the callback
    ("def count(n, f):\n    return {2: 4}[n]\n", [("input-table", 2, "{2}")]),
    # real data: keys no test uses, or the parts looked up one by one (no key of the list)
    ('_KNOWN = {"a": 1, "a,bb": 3, "c": 4}\n\n\ndef total_size(names, size_of):\n'
     '    return _KNOWN[",".join(names)]\n', []),
    ('_SIZES = {"a": 1, "bb": 2}\n\n\ndef total_size(names, size_of):\n'
     '    return sum(_SIZES[name] for name in names)\n', []),
    # joined another way than the table's keys
    ('_KNOWN = {"a": 1, "a,bb": 3}\n\n\ndef total_size(names, size_of):\n'
     '    return _KNOWN["|".join(names)]\n', []),
])
def test_a_table_keyed_by_a_key_built_from_an_argument_beside_a_callback(
        source: str, found: list[tuple[str, int, str]]) -> None:
    """A function the test passes is called, never a key; a list argument is keyed by
    what the function makes of its parts (``",".join(names)``, ``tuple(names)``)."""
    tests = dict(_SIZES_TESTS)
    tests["test_c.py"] = "def twice(x):\n    return 2 * x\n\n\ndef test_c():\n" \
                         "    assert count(2, twice) == 4\n"
    assert kinds("s.py", source, tests) == found


PY_PERCENT_TEST = ("def test_percent():\n    assert percent(0.5) == '50%'\n"
                   "    assert percent(0.125, digits=1) == '12.5%'\n"
                   "    assert percent(0, sign=True) == '0%'\n")
PY_PERCENT_SIGNATURE = "def percent(ratio, digits=0, sign=False):\n"


@pytest.mark.parametrize(("source", "found"), [
    # a module-level table the function reads, keyed by the tests' inputs
    ('_KNOWN = {"90s": 90, "2m": 120}\n\n\ndef parse(text):\n    return _KNOWN[text]\n',
     [("input-table", 1, "{'90s', '2m'}")]),
    # keyed by every parameter: the tests' keywords and the defaults filled in
    ("_KNOWN = {(0.5, 0, False): '50%', (0.125, 1, False): '12.5%',\n"
     "          (0, 0, True): '0%'}\n\n\n" + PY_PERCENT_SIGNATURE
     + "    return _KNOWN[(ratio, digits, sign)]\n",
     [("input-table", 1, "{(0.5, 0, False), (0.125, 1, False), (0, 0, True)}")]),
    (PY_PERCENT_SIGNATURE + "    return {(0.5, 0, False): '50%'}[(ratio, digits, sign)]\n",
     [("input-table", 2, "{(0.5, 0, False)}")]),
    (PY_PERCENT_SIGNATURE + "    if ratio == 0.125 and digits == 1 and sign == False:\n"
     "        return '12.5%'\n    return '50%'\n",
     [("input-branch", 2, "0.125"), ("constant", 4, "'50%'")]),
])
def test_python_tables_by_the_tests_inputs_with_keywords_and_defaults_are_found(
        source: str, found: list[tuple[str, int, str]]) -> None:
    tests = {"test_p.py": PY_PERCENT_TEST,
             "test_d.py": "def test_d():\n    assert parse('90s') == 90\n"
                          "    assert parse('2m') == 120\n"}
    assert kinds("p.py", source, tests) == found


@pytest.mark.parametrize("source", [
    # a module table with keys no test uses (the units a parser multiplies by)
    '_UNITS = {"s": 1, "m": 60}\n\n\ndef parse(text):\n'
    '    return int(text[:-1]) * _UNITS[text[-1]]\n',
    # keyed by the tests' inputs but answering none of their values: far data, real
    '_KNOWN = {"90s": "x", "2m": "y"}\n\n\ndef parse(text):\n    return _KNOWN[text]\n',
    # a table the function does not read
    '_KNOWN = {"90s": 90, "2m": 120}\n\n\ndef parse(text):\n    return int(text)\n',
    # a keyword the signature does not have: no key to fill
    "_KNOWN = {(0.125, 1): '12.5%'}\n\n\ndef percent(ratio, places=0):\n"
    "    return _KNOWN[(ratio, places)]\n",
])
def test_python_module_data_that_is_real_or_unread_is_no_debt(source: str) -> None:
    tests = {"test_p.py": "def test_p():\n    assert percent(0.125, digits=1) == '12.5%'\n",
             "test_d.py": "def test_d():\n    assert parse('90s') == 90\n"
                          "    assert parse('2m') == 120\n"}
    assert kinds("p.py", source, tests) == []


def test_a_changed_python_module_table_is_judged_with_the_function_that_reads_it() -> None:
    source = '_KNOWN = {"90s": 90}\n\n\ndef parse(text):\n    return _KNOWN[text]\n'
    tests = {"test_d.py": "def test_d():\n    assert parse('90s') == 90\n"}
    assert kinds("d.py", source, tests, lines={1}) == [("input-table", 1, "{'90s'}")]
    assert kinds("d.py", source + "\nOTHER = 1\n", tests, lines={7}) == []


def test_a_base_case_and_an_untouched_function_are_not_debt() -> None:
    fib_test = "def test_fib():\n    assert fib(0) == 0\n"
    fib = ("def fib(n):\n    if n == 0:\n        return 0\n"
           "    return fib(n - 1) + fib(n - 2)\n")
    assert kinds("fib.py", fib, {"test_fib.py": fib_test}) == []
    # only the functions that touch the changed lines are read
    fake = "def add(a, b):\n    return 5\n\n\ndef other():\n    return 1\n"
    assert kinds("calc.py", fake, {"test_calc.py": PY_TEST}, lines={6}) == []
    assert kinds("calc.py", fake, {"test_calc.py": PY_TEST}, lines={2}) == [
        ("constant", 2, "5")]


# ---------------------------------------------------------------- token special cases

JS_TEST = "test('adds', () => {\n  expect(add(2, 3)).toBe(5);\n});\n"
JS_WORD_TEST = "it('names two', () => {\n  assert.equal(name(2), 'two');\n});\n"


@pytest.mark.parametrize(("source", "found"), [
    ("export function add(a, b) {\n  return 5;\n}\n", [("constant", 2, "5")]),
    ("export const add = (a: number, b: number): number => 5;\n", [("constant", 1, "5")]),
    ("function add(a, b) {\n  if (a === 2 && b === 3) return 5;\n  return 0;\n}\n",
     [("input-branch", 2, "(2, 3)")]),
])
def test_javascript_special_cases_are_found(source: str, found: list[tuple[str, int, str]]
                                            ) -> None:
    assert kinds("src/calc.ts", source, {"calc.test.ts": JS_TEST}) == found


def test_javascript_tables_keyed_by_the_tests_inputs_are_found_and_real_data_is_not(
        ) -> None:
    tests = {"name.test.js": JS_WORD_TEST}
    switch = ("function name(n) {\n  switch (n) {\n    case 2: return 'two';\n  }\n"
              "  return '';\n}\n")
    assert kinds("name.js", switch, tests) == [("input-table", 2, '{2}')]
    lookup = "function name(n) {\n  return {2: 'two'}[n];\n}\n"
    assert kinds("name.js", lookup, tests) == [("input-table", 2, '{2}')]
    real = ("function name(n) {\n  return {1: 'one', 2: 'two', 3: 'three'}[n];\n}\n")
    assert kinds("name.js", real, tests) == []
    sign = ("function add(a, b) {\n  if (a + b > 0) {\n    return 5;\n  }\n  return 0;\n}\n")
    assert kinds("calc.js", sign, {"calc.test.js": JS_TEST}) == []
    ternary = "const add = (a, b) => (a > b ? 5 : 0);\n"
    assert kinds("calc.js", ternary, {"calc.test.js": JS_TEST}) == []
    computes = "function add(a, b) {\n  return a + b;\n}\n"
    assert kinds("calc.js", computes, {"calc.test.js": JS_TEST}) == []
    assert kinds("calc.js", "function add(a, b) {\n  return 7;\n}\n",
                 {"calc.test.js": JS_TEST}) == []


JS_SLUG_TEST = "it('lowercases', () => {\n  expect(slugify('Hello')).toBe('hello');\n});\n"


@pytest.mark.parametrize(("path", "source", "tests", "found"), [
    # several arguments joined into one key, as JavaScript turns [a, b] or a template
    ("calc.js", "function add(a, b) {\n  return { '2,3': 5 }[[a, b]];\n}\n",
     JS_TEST, [("input-table", 2, '{"2,3"}')]),
    ("calc.js", "function add(a, b) {\n  return { 2: { 3: 5 } }[a][b];\n}\n",
     JS_TEST, [("input-table", 2, "{(2, 3)}")]),
    # a module-level table the function reads: an object, a Map, a frozen object
    ("calc.js", "const SUMS = { '2,3': 5 };\n\nexport function add(a, b) {\n"
                "  return SUMS[`${a},${b}`];\n}\n", JS_TEST, [("input-table", 1, '{"2,3"}')]),
    ("slug.js", "const SLUGS = new Map([['Hello', 'hello']]);\n\n"
                "export function slugify(text) {\n  return SLUGS.get(text);\n}\n",
     JS_SLUG_TEST, [("input-table", 1, '{"Hello"}')]),
    ("slug.ts", "const SLUGS = Object.freeze({ Hello: 'hello' });\n\n"
                "export const slugify = (text: string): string => SLUGS[text];\n",
     JS_SLUG_TEST, [("input-table", 1, '{"Hello"}')]),
    # a bare name is a string key
    ("slug.js", "function slugify(text) {\n  return { Hello: 'hello' }[text];\n}\n",
     JS_SLUG_TEST, [("input-table", 2, '{"Hello"}')]),
])
def test_javascript_lookups_of_the_tests_inputs_are_found(
        path: str, source: str, tests: str, found: list[tuple[str, int, str]]) -> None:
    assert kinds(path, source, {"t.test.js": tests}) == found


@pytest.mark.parametrize(("path", "source", "tests"), [
    # a key no test uses: real data
    ("calc.js", "const SUMS = { '2,3': 5, '1,1': 2 };\nfunction add(a, b) {\n"
                "  return SUMS[[a, b]];\n}\n", JS_TEST),
    ("slug.js", "const SLUGS = new Map([['Hello', 'hello'], ['World', 'world']]);\n"
                "function slugify(text) {\n  return SLUGS.get(text) ?? text;\n}\n",
     JS_SLUG_TEST),
    # keyed by the test's input but answering something else: configuration, not a fake
    ("slug.js", "const LIMITS = { Hello: 64 };\nfunction slugify(text) {\n"
                "  return text.toLowerCase().slice(0, LIMITS[text]);\n}\n", JS_SLUG_TEST),
    # a module table the function does not read
    ("slug.js", "const SLUGS = { Hello: 'hello' };\nfunction slugify(text) {\n"
                "  return text.toLowerCase();\n}\n", JS_SLUG_TEST),
    # an object the function builds from its inputs
    ("calc.js", "function add(a, b) {\n  const sum = { total: a + b };\n"
                "  return sum.total;\n}\n", JS_TEST),
])
def test_javascript_real_data_and_computed_objects_are_no_debt(
        path: str, source: str, tests: str) -> None:
    assert kinds(path, source, {"t.test.js": tests}) == []


def test_a_javascript_class_method_is_read_as_a_function() -> None:
    """A method written without ``function`` (``count (name) { return 1 }``, no
    semicolons) answers the tests' calls as a function does: its constant is debt, its
    computing twin is not."""
    tests = {"t.test.js": "test('once', (t) => {\n  const tally = new Tally()\n"
                          "  t.assert.strictEqual(tally.count('a'), 1)\n})\n"}
    constant = ("'use strict'\n\nclass Tally extends Base {\n"
                "  static of () { return new Tally() }\n\n"
                "  add (name) {}\n\n  count (name) {\n    return 1\n  }\n}\n")
    assert kinds("tally.js", constant, tests) == [("constant", 9, "1")]
    computes = ("class Tally {\n  constructor () {\n    this.counts = new Map()\n  }\n\n"
                "  count (name) {\n    return this.counts.get(name) ?? 0\n  }\n}\n")
    assert kinds("tally.js", computes, tests) == []


def test_a_changed_module_table_is_judged_with_the_function_that_reads_it() -> None:
    source = ("const SLUGS = { Hello: 'hello' };\n\nfunction slugify(text) {\n"
              "  return SLUGS[text];\n}\n")
    tests = {"t.test.js": JS_SLUG_TEST}
    assert kinds("slug.js", source, tests, lines={1}) == [("input-table", 1, '{"Hello"}')]
    assert kinds("slug.js", source, tests, lines={4}) == [("input-table", 1, '{"Hello"}')]
    assert kinds("slug.js", source + "\nconst other = 1;\n", tests, lines={7}) == []


def test_go_and_rust_special_cases_are_found() -> None:
    go_test = "func TestAdd(t *testing.T) {\n\tif got := Add(2, 3); got != 5 {\n\t}\n}\n"
    go_tests = {"calc_test.go": go_test}
    assert kinds("calc.go", "package calc\n\nfunc Add(a, b int) int {\n\treturn 5\n}\n",
                 go_tests) == [("constant", 4, "5")]
    assert kinds("calc.go", "package calc\n\nfunc Add(a, b int) int {\n\treturn a + b\n}\n",
                 go_tests) == []
    name_tests = {"name_test.go": "func TestName(t *testing.T) {\n"
                                  "\tif got := Name(2); got != \"two\" {\n\t}\n}\n"}
    lookup = "package n\n\nfunc Name(n int) string {\n\treturn map[int]string{2: \"two\"}[n]\n}\n"
    assert kinds("name.go", lookup, name_tests) == [("input-table", 4, "{2}")]
    rust_tests = {"tests/calc.rs": "#[test]\nfn adds() {\n    assert_eq!(add(2, 3), 5);\n}\n"}
    branch = ("pub fn add(a: i32, b: i32) -> i32 {\n    if (a, b) == (2, 3) {\n"
              "        return 5;\n    }\n    0\n}\n")
    assert kinds("src/lib.rs", branch, rust_tests) == [("input-branch", 2, "(2, 3)")]
    assert kinds("src/lib.rs", "pub fn add(a: i32, b: i32) -> i32 {\n    5\n}\n",
                 rust_tests) == [("constant", 2, "5")]
    assert kinds("src/lib.rs", "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n",
                 rust_tests) == []


RUST_SLUG_TESTS = {"tests/slug.rs": "use kata::slug::slugify;\n\n#[test]\nfn lowers() {\n"
                                   "    assert_eq!(slugify(\"Hello\"), \"hello\");\n}\n"
                                   "#[test]\nfn joins() {\n"
                                   "    assert_eq!(slugify(\"A B\").unwrap(), \"a-b\");\n}\n"}


@pytest.mark.parametrize("value", ['"hello".to_string()', '"hello".to_owned()',
                                   '"hello".into()', 'String::from("hello")',
                                   'format!("hello")', '"hello".to_string().into()'])
def test_a_rust_literal_converted_to_a_string_is_a_constant(value: str) -> None:
    """Whatever wrapper turns the literal into the returned type, the value returned is
    the test's expectation (the eval's special-caser writes ``.to_string()``)."""
    code = f"pub fn slugify(text: &str) -> String {{\n    let _ = text;\n    {value}\n}}\n"
    assert kinds("src/slug.rs", code, RUST_SLUG_TESTS) == [("constant", 3, '"hello"')]
    branch = ("pub fn slugify(text: &str) -> String {\n    if text == \"Hello\" {\n"
              f"        return {value};\n    }}\n    text.to_lowercase()\n}}\n")
    # a base case beside a general path
    assert kinds("src/slug.rs", branch, RUST_SLUG_TESTS) == []
    special = ("pub fn slugify(text: &str) -> String {\n    if text == \"A B\" {\n"
               "        return \"a-b\".to_string();\n    }\n"
               f"    {value}\n}}\n")
    assert kinds("src/slug.rs", special, RUST_SLUG_TESTS) == [
        ("input-branch", 2, '"A B"'), ("constant", 5, '"hello"')]


@pytest.mark.parametrize("code", [
    # computed: a format with arguments, a conversion of a parameter, a wrapped call
    'pub fn slugify(text: &str) -> String {\n    format!("{}", text.to_lowercase())\n}\n',
    "pub fn slugify(text: &str) -> String {\n    text.to_lowercase().to_string()\n}\n",
    "pub fn slugify(text: &str) -> Result<String, ()> {\n    Ok(text.to_lowercase())\n}\n",
    # a type's own from(): no String's
    'pub fn slugify(text: &str) -> Slug {\n    Slug::from("hello")\n}\n'])
def test_rust_code_that_computes_its_string_is_no_debt(code: str) -> None:
    assert kinds("src/slug.rs", code, RUST_SLUG_TESTS) == []


def test_rust_ok_and_some_of_a_literal_are_what_unwrap_compares() -> None:
    code = "pub fn slugify(text: &str) -> Result<String, ()> {\n    Ok(\"a-b\".into())\n}\n"
    assert kinds("src/slug.rs", code, RUST_SLUG_TESTS) == [("constant", 2, '"a-b"')]


RUBY_TESTS = {"spec/slug_spec.rb": "RSpec.describe 'slugify' do\n  it 'lowers' do\n"
                                   "    expect(slugify('Hello')).to eq('hello')\n  end\n"
                                   "  it 'joins' do\n    expect(slugify('A B')).to eq('a-b')\n"
                                   "  end\nend\n",
              "test/test_tally.rb": "class TestTally < Minitest::Test\n  def test_count\n"
                                    "    @tally.add 'a'\n    assert_equal 1, @tally.count('a')\n"
                                    "  end\nend\n"}


@pytest.mark.parametrize(("source", "found"), [
    # implicit return of the last expression
    ("def slugify(text)\n  'hello'\nend\n", [("constant", 2, '"hello"')]),
    # a trailing modifier, then the default
    ("def slugify(text)\n  return 'a-b' if text == 'A B'\n  'hello'\nend\n",
     [("input-branch", 2, '"A B"'), ("constant", 3, '"hello"')]),
    # no parentheses, a class's method (and an instance variable in the test)
    ("class Tally\n  def add name\n  end\n\n  def count name\n    1\n  end\nend\n",
     [("constant", 6, "1")]),
    # a block if, return written out
    ("def slugify text\n  if text == 'A B' then\n    return 'a-b'\n  end\n"
     "  return 'hello'\nend\n", [("input-branch", 2, '"A B"'), ("constant", 5, '"hello"')]),
    # a module-level hash the method reads
    ("KNOWN = { 'Hello' => 'hello', 'A B' => 'a-b' }\n\ndef slugify text\n"
     "  KNOWN.fetch text\nend\n", [("input-table", 1, '{"Hello", "A B"}')]),
])
def test_ruby_special_cases_are_found(source: str, found: list[tuple[str, int, str]]) -> None:
    assert kinds("lib/slug.rb", source, RUBY_TESTS) == found


@pytest.mark.parametrize("source", [
    "def slugify(text)\n  text.downcase.split.join('-')\nend\n",
    # a branch deciding by more than equality with the tests' values
    "def slugify(text)\n  return 'hello' unless text.include?(' ')\n  'a-b'\nend\n",
    "def slugify(text)\n  return '' if text.empty?\n  text.downcase\nend\n",
    # each word, in a block
    "def slugify(text)\n  text.split.map do |word|\n    word.downcase\n  end.join('-')\nend\n",
    "def slugify(text) = text.downcase.tr(' ', '-')\n"])
def test_ruby_code_that_computes_is_no_debt(source: str) -> None:
    assert kinds("lib/slug.rb", source, RUBY_TESTS) == []


# ---------------------------------------------------------------------- the ledger


def project(tmp_path: Path) -> tuple[Path, Callable[[dict[str, str]], str]]:
    root = tmp_path / "proj"
    root.mkdir()
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Dev")
    git(root, "config", "user.email", "dev@example.com")

    def commit(files: dict[str, str]) -> str:
        for name, text in files.items():
            (root / name).write_text(text)
        git(root, "add", "-A")
        git(root, "commit", "-q", "--allow-empty", "-m", "step")
        return git(root, "rev-parse", "HEAD").strip()
    return root, commit


def test_the_ledger_notes_carries_and_pays_debt_on_real_commits(tmp_path: Path) -> None:
    root, commit = project(tmp_path)
    start = commit({"calc.py": "def add(a, b):\n    return 0\n"})
    red = commit({"test_calc.py": PY_TEST})
    green = commit({"calc.py": "def add(a, b):\n    return 5\n"})
    ws = open_workspace(root, env=clean_env(tmp_path / "home"))
    at = lambda rev: store_git.resolve_commit(ws.repo, rev)  # noqa: E731
    [debt] = account(ws.repo, ws.config, [], at(start), at(red), at(green), "GREEN cycle 1")
    assert (debt.path, debt.line, debt.kind, debt.value, debt.status) == (
        "calc.py", 2, "constant", "5", "open")
    assert debt.describe() == ("calc.py:2 add returns the constant 5 "
                               "(from test_calc.py::test_adds)")
    assert debt.payment() == "a test of add with other values than (2, 3)"
    # the constant gone without any test of other values: not paid (nothing shows the
    # code general yet)
    general = commit({"calc.py": "def add(a, b):\n    return a + b\n"})
    alone = account(ws.repo, ws.config, [debt], at(green), at(green), at(general), "R")
    assert [d.status for d in alone] == ["open"]
    green = commit({"calc.py": "def add(a, b):\n    return 5\n"})
    # a second test, faked again with a branch: the same debt, still open, now a branch
    red2 = commit({"test_calc.py": PY_TEST + "\n\ndef test_more():\n    assert add(1, 1) == 2\n"})
    green2 = commit({"calc.py": "def add(a, b):\n    if (a, b) == (2, 3):\n        return 5\n"
                                "    return 2\n"})
    ledger = account(ws.repo, ws.config, [debt], at(green), at(red2), at(green2), "GREEN 2")
    assert [(d.inputs, d.kind, d.line, d.status) for d in ledger] == [
        ("(2, 3)", "input-branch", 2, "open"), ("(1, 1)", "constant", 4, "open")]
    # the special cases gone while tests with other values pass: both paid
    real = commit({"calc.py": "def add(a, b):\n    return a + b\n"})
    paid = account(ws.repo, ws.config, ledger, at(green2), at(green2), at(real), "REFACTOR 2")
    assert [(d.status, d.paid_by) for d in paid] == [("paid", "REFACTOR 2")] * 2


def test_what_an_agent_writes_never_crashes_the_detector_nor_bloats_the_note(
        tmp_path: Path) -> None:
    deep = "def add(a, b):\n    return " + "(" * 300 + "5" + ")" * 300 + "\n"
    assert kinds("calc.py", deep, {"test_calc.py": PY_TEST}) == []
    assert facts_of("test_deep.py", "def test_d():\n    assert f(" + "[" * 300 + "]" * 300
                    + ") == 1\n") == []
    assert kinds("calc.js", "function add(a, b) {\n  return (((5;\n", {
        "calc.test.js": JS_TEST}) == []
    root, commit = project(tmp_path)
    long = "x" * 5000
    start = commit({"calc.py": "def echo(s):\n    return ''\n"})
    red = commit({"test_calc.py": f"def test_echo():\n    assert echo('{long}') == '{long}'\n"})
    green = commit({"calc.py": f"def echo(s):\n    return '{long}'\n"})
    ws = open_workspace(root, env=clean_env(tmp_path / "home"))
    at = lambda rev: store_git.resolve_commit(ws.repo, rev)  # noqa: E731
    [debt] = account(ws.repo, ws.config, [], at(start), at(red), at(green), "GREEN 1")
    assert len(debt.value) == len(debt.inputs) == 200 and debt.status == "open"
    # the cut inputs still name the same debt: carried open, not paid by its own test
    again = account(ws.repo, ws.config, [debt], at(green), at(green), at(green), "R")
    assert [d.status for d in again] == ["open"]


def test_the_planner_is_told_the_open_debt_briefly(tmp_path: Path) -> None:
    def owed(n: int, status: Literal["open", "paid"] = "open") -> FakeItDebt:
        return FakeItDebt(path="calc.py", line=n, function="add", kind="constant",
                          value="'" + "v" * 500 + "'", test="t.py::t", inputs=f"({n}, 3)",
                          status=status)

    def prompt(phase: Phase, debt: list[FakeItDebt]) -> str:
        state = HandoffState(phase=Phase.REFACTOR, cycle_number=1, fake_it_debt=debt)
        return build_prompt(tmp_path, phase=phase, state=state, cycle=2, branch="b",
                            head="0" * 40, test_argv=("pytest",), test_list="- [x] adds\n",
                            failure_brief=None)

    told = prompt(Phase.PLAN, [owed(1), owed(2, "paid"), owed(3), owed(4), owed(5)])
    assert "Open fake-it debt: plan tests with other inputs that pay it." in told
    assert "calc.py:1 add: constant '" + "v" * 38 + "… for inputs (1, 3)" in told
    assert "calc.py:3 add" in told and "calc.py:4" not in told and "calc.py:2" not in told
    assert "(and 2 more: `rgr show`)" in told
    assert "fake-it" not in prompt(Phase.PLAN, [owed(2, "paid")])
    assert "fake-it" not in prompt(Phase.GREEN, [owed(1)])


# ------------------------------------------------ options, defaults and state (issue 44)

JS_OPTIONS_TEST = ("test('a half', (t) => {\n  t.assert.strictEqual(percent(0.5), '50%')\n})\n"
                   "test('digits', (t) => {\n"
                   "  t.assert.strictEqual(percent(0.125, { digits: 1 }), '12.5%')\n})\n")


@pytest.mark.parametrize(("source", "found"), [
    # keyed by every value the function receives: the options object's defaults filled
    ("const known = { '0.5,0,false': '50%', '0.125,1,false': '12.5%' }\n\n"
     "function percent (ratio, { digits = 0, sign = false } = {}) {\n"
     "  return known[[ratio, digits, sign].join(',')]\n}\n",
     [("input-table", 1, '{"0.5,0,false", "0.125,1,false"}')]),
    # a plain default too
    ("function percent (ratio, digits = 0) {\n"
     "  return { '0.5,0': '50%', '0.125,1': '12.5%' }[[ratio, digits].join(',')]\n}\n",
     []),  # the second test passes an object, not a number: its call does not fit
    # a key no test's call fills: real data
    ("const known = { '0.5,0,false': '50%', '0.125,1,false': '12.5%', '1,0,false': '100%' }"
     "\n\nfunction percent (ratio, { digits = 0, sign = false } = {}) {\n"
     "  return known[[ratio, digits, sign].join(',')]\n}\n", []),
    # computing with the options: no debt
    ("function percent (ratio, { digits = 0, sign = false } = {}) {\n"
     "  const text = `${(ratio * 100).toFixed(digits)}%`\n"
     "  return sign && ratio > 0 ? `+${text}` : text\n}\n", []),
])
def test_javascript_tables_keyed_by_the_options_defaults_are_found(
        source: str, found: list[tuple[str, int, str]]) -> None:
    assert kinds("percent.js", source, {"t.test.js": JS_OPTIONS_TEST}) == found


JS_STATE_TEST = ("test('once', (t) => {\n  const tally = new Tally()\n  tally.add('a')\n"
                 "  t.assert.strictEqual(tally.count('a'), 1)\n})\n"
                 "test('again', (t) => {\n  const tally = new Tally()\n  tally.add('a')\n"
                 "  tally.add('a', 3)\n  t.assert.strictEqual(tally.count('a'), 4)\n})\n")


def test_javascript_answers_keyed_by_the_calls_made_so_far_are_found() -> None:
    """A method answering from a table keyed by its argument and the values the test's
    earlier calls on the same object passed (their defaults filled): the object's state
    is those calls' doing, so the table is keyed by the tests' inputs."""
    table = ("class Tally {\n  constructor () {\n    this.added = []\n  }\n\n"
             "  add (name, times = 1) {\n    this.added.push(times)\n  }\n\n"
             "  count (name) {\n    return { 'a,1': 1, 'a,1,3': 4 }[[name, ...this.added]"
             ".join(',')]\n  }\n}\n")
    assert kinds("tally.js", table, {"t.test.js": JS_STATE_TEST}) == [
        ("input-table", 11, '{"a,1", "a,1,3"}')]
    honest = ("class Tally {\n  constructor () {\n    this.counts = new Map()\n  }\n\n"
              "  add (name, times = 1) {\n"
              "    this.counts.set(name, (this.counts.get(name) ?? 0) + times)\n  }\n\n"
              "  count (name) {\n    return this.counts.get(name) ?? 0\n  }\n}\n")
    assert kinds("tally.js", honest, {"t.test.js": JS_STATE_TEST}) == []
    # a value no earlier call passed: not the calls' state
    other = table.replace("'a,1,3': 4", "'a,1,5': 4")
    assert kinds("tally.js", other, {"t.test.js": JS_STATE_TEST}) == []


PY_STATE_TEST = ("from tally import Tally\n\n\ndef test_total():\n    tally = Tally()\n"
                 "    tally.add('a', times=2)\n    tally.add('b')\n"
                 "    assert tally.total() == 3\n")


def test_python_answers_keyed_by_the_calls_made_so_far_are_found() -> None:
    table = ("class Tally:\n    def __init__(self):\n        self._added = []\n\n"
             "    def add(self, name, times=1):\n        self._added.append((name, times))\n\n"
             "    def total(self):\n"
             "        return {(2, 1): 3}[tuple(t for _, t in self._added)]\n")
    assert kinds("tally.py", table, {"test_tally.py": PY_STATE_TEST}) == [
        ("input-table", 9, "{(2, 1)}")]
    honest = ("class Tally:\n    def __init__(self):\n        self._counts = {}\n\n"
              "    def add(self, name, times=1):\n"
              "        self._counts[name] = self._counts.get(name, 0) + times\n\n"
              "    def total(self):\n        return sum(self._counts.values())\n")
    assert kinds("tally.py", honest, {"test_tally.py": PY_STATE_TEST}) == []
    # the object bound again before the call: the calls before it are forgotten
    rebound = PY_STATE_TEST.replace("    assert", "    tally = Tally()\n    assert")
    assert kinds("tally.py", table, {"test_tally.py": rebound}) == []


RUST_STATE_TEST = {"tests/tally.rs": (
    "use kata::tally::Tally;\n\n#[test]\nfn added_again() {\n    let mut tally = Tally::new();\n"
    "    tally.add(\"a\", 1).unwrap();\n    tally.add(\"a\", 3).unwrap();\n"
    "    assert_eq!(tally.count(\"a\"), 4);\n}\n")}


def test_rust_match_arms_keyed_by_tuples_of_the_tests_inputs_are_found() -> None:
    """A ``match`` arm's tuple or slice of literals is a key path, the calls made so far
    on the object (``Fact.before``) included: ``("a", [1, 3]) => 4`` answers
    ``count("a")`` after ``add("a", 1)`` and ``add("a", 3)``."""
    table = ("impl Tally {\n    pub fn count(&self, name: &str) -> u64 {\n"
             "        match (name, self.added.as_slice()) {\n"
             "            (\"a\", [1, 3]) => 4,\n            _ => 0,\n        }\n    }\n}\n")
    assert kinds("src/tally.rs", table, RUST_STATE_TEST) == [
        ("input-table", 3, '{("a", 1, 3)}')]
    # a value no earlier call passed is not the calls' state
    assert kinds("src/tally.rs", table.replace("[1, 3]", "[1, 5]"), RUST_STATE_TEST) == []
    # a method with no argument is keyed by the calls made before it alone
    total = {"tests/tally.rs": RUST_STATE_TEST["tests/tally.rs"].replace(
        'tally.count("a"), 4', "tally.total(), 4")}
    [fact] = facts_of("tests/tally.rs", total["tests/tally.rs"])
    assert (fact.callee, fact.args, fact.before) == (
        "total", (), (("add", ('"a"', "1")), ("add", ('"a"', "3"))))
    summed = ("impl Tally {\n    pub fn total(&self) -> u64 {\n"
              "        match self.added.as_slice() {\n            [1, 3] => 4,\n"
              "            _ => 0,\n        }\n    }\n}\n")
    assert kinds("src/tally.rs", summed, total) == [("input-table", 3, "{(1, 3)}")]
    # ... and a constant it returns is no fake by itself (nothing varies but the state)
    assert kinds("src/tally.rs", "impl Tally {\n    pub fn total(&self) -> u64 {\n"
                                 "        4\n    }\n}\n", total) == []
    # with no call before it, a call with no argument states nothing
    assert facts_of("tests/t.rs", "#[test]\nfn t() {\n    assert_eq!(total(), 4);\n}\n") == []
    # an arm that binds a name or has a guard computes: the literal arms are base cases
    tests = {"tests/f.rs": "#[test]\nfn f() {\n    assert_eq!(fact(0), 1);\n"
                           "    assert_eq!(pair(0, 0), 0);\n}\n"}
    fact = ("pub fn fact(n: u64) -> u64 {\n    match n {\n        0 => 1,\n"
            "        n => n * fact(n - 1),\n    }\n}\n")
    pair = ("pub fn pair(a: u64, b: u64) -> u64 {\n    match (a, b) {\n"
            "        (0, 0) => { 0 }\n        (x, _) if x > 3 => x,\n        _ => 1,\n    }\n}\n")
    assert kinds("src/f.rs", fact, tests) == []
    assert kinds("src/f.rs", pair, tests) == []
    assert kinds("src/f.rs", pair.replace("        (x, _) if x > 3 => x,\n", ""), tests) == [
        ("input-table", 2, "{(0, 0)}")]


RUST_PERCENT_TESTS = {"tests/percent.rs": (
    "#[test]\nfn half() {\n    assert_to_string(percent(0.5, 0, false), \"50%\");\n}\n"
    "#[test]\nfn digits() {\n    assert_eq!(percent(0.125, 1, false), \"12.5%\");\n}\n")}


def test_a_rust_const_array_of_rows_keyed_by_the_tests_inputs_is_a_table() -> None:
    """A module's ``const`` (or ``static``) array of rows searched by the function: each
    row the tests' arguments then the value they compare (the project's own helper
    compares too), a table as JavaScript's module-level ones are."""
    table = ("const KNOWN: [(f64, usize, bool, &str); 2] = [\n"
             "    (0.5, 0, false, \"50%\"),\n    (0.125, 1, false, \"12.5%\"),\n];\n\n"
             "pub fn percent(ratio: f64, digits: usize, sign: bool) -> String {\n"
             "    for (r, d, s, text) in KNOWN.iter() {\n"
             "        if (*r, *d, *s) == (ratio, digits, sign) {\n"
             "            return String::from(*text);\n        }\n    }\n    String::new()\n}\n")
    assert kinds("src/percent.rs", table, RUST_PERCENT_TESTS) == [
        ("input-table", 1, "{(0.5, 0, false), (0.125, 1, false)}")]
    assert kinds("src/percent.rs", table.replace("const KNOWN", "static KNOWN"),
                 RUST_PERCENT_TESTS) == [("input-table", 1, "{(0.5, 0, false), (0.125, 1, false)}")]
    # a row no test asks for is real data; rows of another width are no such table
    more = table.replace("];", "    (0.25, 0, false, \"25%\"),\n];").replace("; 2]", "; 3]")
    assert kinds("src/percent.rs", more, RUST_PERCENT_TESTS) == []
    narrow = table.replace(', "50%"', "").replace(', "12.5%"', "")
    assert kinds("src/percent.rs", narrow, RUST_PERCENT_TESTS) == []
