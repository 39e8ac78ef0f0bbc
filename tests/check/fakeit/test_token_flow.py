"""Fake-it on the token side by data flow (rgr.check.fakeit.token_flow, issue 44 item 2):
what a JavaScript, Go, Rust or Java test compares with the result of calling the code,
whatever the form of the comparison (a call of any name with the result and a literal, a
chain from the result to a literal, an equality, names bound to either, tables of cases),
then the production special cases those values reveal, and the ledger on real commits."""

from __future__ import annotations

from pathlib import Path

import pytest

from rgr.check.fakeit.facts import facts_of
from rgr.check.fakeit.ledger import account
from rgr.store import git as store_git
from rgr.store.workspace import open_workspace
from tests.check.fakeit.test_fakeit import kinds, project
from tests.conftest import clean_env


def stated(path: str, source: str) -> set[tuple[str, tuple[str, ...], str]]:
    return {(f.callee, f.args, f.expected) for f in facts_of(path, source)}


JS_FORMS = """import test from 'node:test';
import assert from 'node:assert/strict';
import { fmt } from '../src/fmt.js';

test('formats', () => {
  assert.strictEqual(fmt(1.5, 2), '1.50', 'two digits')
  expect(fmt(2))
    .toBe('2.00')
  const got = fmt(5)
  const want = '5.00'
  assert.equal(got, want)
  agrees(fmt(6), '6.00')
  assert(fmt(7) === '7.00')
  for (const [input, expected] of [[8, '8.00'], [9, '9.00'],]) {
    assert.equal(fmt(input), expected)
  }
  const cases = [{ input: 10, out: '10.00' }]
  cases.forEach(({ input, out }) => {
    expect(fmt(input)).toEqual(out)
  })
  expect(fmt(11)).to.equal('11.00');
})
"""


def test_javascript_comparisons_of_every_form_state_the_fact() -> None:
    assert stated("test/fmt.test.js", JS_FORMS) == {
        ("fmt", ("1.5", "2"), '"1.50"'), ("fmt", ("2",), '"2.00"'),
        ("fmt", ("5",), '"5.00"'), ("fmt", ("6",), '"6.00"'), ("fmt", ("7",), '"7.00"'),
        ("fmt", ("8",), '"8.00"'), ("fmt", ("9",), '"9.00"'), ("fmt", ("10",), '"10.00"'),
        ("fmt", ("11",), '"11.00"')}


@pytest.mark.parametrize("line", [
    "expect(fmt(3)).not.toBe('3.00')",
    "expect(fmt(3)).toBeGreaterThan(2)",
    "expect(fmt(3)).toHaveLength(4)",
    "assert.notStrictEqual(fmt(3), '3.00')",
    "assert.throws(() => fmt(3), 'bad')",
    "console.log(fmt(3), 'x')",
])
def test_a_comparison_that_says_otherwise_states_nothing(line: str) -> None:
    assert stated("t.test.js", f"test('x', () => {{\n  {line}\n}})\n") == set()


JS_SIZES = """const { totalSize } = require('../index.js')

async function sizeOf (name) {
  return name.length
}
const lengthOf = async (name) => name.length

test('sizes', async (t) => {
  t.assert.strictEqual(await totalSize(['a'], sizeOf), 1)
  t.assert.strictEqual(await totalSize(['a', 'bb'], lengthOf), 3)
  t.assert.strictEqual(await totalSize([['a', 1], 'c'], (name) => 1), 2)
  t.assert.strictEqual(await totalSize(['a', unknown], sizeOf), 7)
  t.assert.strictEqual(await totalSize(['a'], sizes.get), 8)
})
"""


def test_an_array_of_literals_and_a_callback_are_arguments_a_fact_holds() -> None:
    """An array of literals is one value; a function the file declares (by its name) or
    writes in place (FUNCTION) is an argument the code calls back; an array holding
    anything else, or a name bound nowhere, states nothing."""
    assert stated("test/sizes.test.js", JS_SIZES) == {
        ("totalSize", ('["a"]', "sizeOf"), "1"),
        ("totalSize", ('["a", "bb"]', "lengthOf"), "3"),
        ("totalSize", ('[["a", 1], "c"]', "function"), "2")}


@pytest.mark.parametrize(("source", "found"), [
    ("async function totalSize (names, sizeOf) {\n  return 1\n}\n",
     [("constant", 2, "1")]),
    # keyed by the array's parts joined as the body joins the parameter, or as
    # JavaScript makes an array a key
    ("const known = { a: 1, 'a,bb': 3 }\n\nasync function totalSize (names, sizeOf) {\n"
     "  const key = names.join(',')\n  return known[key]\n}\n",
     [("input-table", 1, '{"a", "a,bb"}')]),
    ("async function totalSize (names, sizeOf) {\n  return { a: 1, 'a,bb': 3 }[names]\n}\n",
     [("input-table", 2, '{"a", "a,bb"}')]),
    # real code and data: it computes, a key no test uses, the parts looked up one by one,
    # joined another way than the table's keys
    ("async function totalSize (names, sizeOf) {\n"
     "  const sizes = await Promise.all(names.map(sizeOf))\n"
     "  return sizes.reduce((a, b) => a + b, 0)\n}\n", []),
    ("const known = { a: 1, 'a,bb': 3, c: 4 }\n\nasync function totalSize (names, sizeOf) {\n"
     "  return known[names.join(',')]\n}\n", []),
    ("const sizes = { a: 1, bb: 2 }\n\nasync function totalSize (names, sizeOf) {\n"
     "  let total = 0\n  for (const name of names) total += sizes[name]\n  return total\n}\n",
     []),
    ("const known = { a: 1, 'a,bb': 3 }\n\nasync function totalSize (names, sizeOf) {\n"
     "  return known[names.join('|')]\n}\n", []),
])
def test_a_fake_beside_a_callback_is_found_and_real_code_is_not(
        source: str, found: list[tuple[str, int, str]]) -> None:
    tests = {"test/sizes.test.js": JS_SIZES.replace(
        "  t.assert.strictEqual(await totalSize([['a', 1], 'c'], (name) => 1), 2)\n", "")}
    assert kinds("index.js", source, tests) == found


GO_TABLE = """package sq

import "testing"

func TestSquare(t *testing.T) {
	tests := []struct {
		name string
		in   int
		want int
	}{
		{"two", 2, 4},
		{name: "three", in: 3, want: 9},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := Square(tc.in); got != tc.want {
				t.Errorf("Square(%d) = %d, want %d", tc.in, got, tc.want)
			}
		})
	}
}

func TestShift(t *testing.T) {
	got := Shift(5, -2)
	want := 3
	if got != want {
		t.Fatalf("got %d, want %d", got, want)
	}
}
"""


def test_go_got_want_and_table_driven_cases_state_one_fact_a_row() -> None:
    assert stated("sq_test.go", GO_TABLE) == {
        ("Square", ("2",), "4"), ("Square", ("3",), "9"), ("Shift", ("5", "-2"), "3")}


#: google/uuid's style: the table written in the loop's header, and a result beside an
#: error (``got, err := F(x)``, compared with ``||``).
GO_INLINE_TABLE = """package d

import "testing"

func TestParse(t *testing.T) {
	for _, tt := range []struct {
		in   string
		want int
	}{
		{"90s", 90},
		{"2m", 120},
	} {
		got, err := Parse(tt.in)
		if err != nil || got != tt.want {
			t.Errorf("Parse(%q) = %d, %v, want %d", tt.in, got, err, tt.want)
		}
	}
	for name, want := range map[string]int{"x": 1} {
		_ = name
		_ = want
	}
}
"""


def test_a_go_table_written_in_the_loops_header_states_one_fact_a_row() -> None:
    assert stated("d_test.go", GO_INLINE_TABLE) == {
        ("Parse", ('"90s"',), "90"), ("Parse", ('"2m"',), "120")}
    tests = {"d_test.go": GO_INLINE_TABLE}
    # a constant beside a nil error; a package-level map keyed by the rows' inputs
    constant = "package d\n\nfunc Parse(s string) (int, error) {\n\treturn 90, nil\n}\n"
    assert kinds("d.go", constant, tests) == [("constant", 4, "90")]
    table = ('package d\n\nimport "fmt"\n\nvar known = map[string]int{"90s": 90, "2m": 120}'
             "\n\nfunc Parse(s string) (int, error) {\n\tif n, ok := known[s]; ok {\n"
             '\t\treturn n, nil\n\t}\n\treturn 0, fmt.Errorf("no: %q", s)\n}\n')
    assert kinds("d.go", table, tests) == [("input-table", 5, '{"90s", "2m"}')]
    # real data (units no row names) and an error that is no nil: no debt
    units = ('package d\n\nvar units = map[string]int{"s": 1, "m": 60}\n\n'
             "func Parse(s string) (int, error) {\n"
             "\treturn units[s[len(s)-1:]], nil\n}\n")
    assert kinds("d.go", units, tests) == []
    failing = ('package d\n\nimport "errors"\n\nfunc Parse(s string) (int, error) {\n'
               '\treturn 90, errors.New("no")\n}\n')
    assert kinds("d.go", failing, tests) == []


def test_rust_and_java_assertions_state_the_fact() -> None:
    rust = ("#[test]\nfn adds() {\n    let got = calc::add(2, 3);\n    assert_eq!(got, 5);\n"
            "    assert_eq!(calc::parse(\"7\").unwrap(), 7, \"parses {}\", 7);\n"
            "    for (a, want) in [(1, 2), (3, 4)] {\n        assert_eq!(calc::inc(a), want);\n"
            "    }\n    assert_ne!(calc::add(1, 1), 3);\n}\n")
    assert stated("tests/calc.rs", rust) == {
        ("add", ("2", "3"), "5"), ("parse", ('"7"',), "7"), ("inc", ("1",), "2"),
        ("inc", ("3",), "4")}
    java = ("class CalcTest {\n  @Test\n  void adds() {\n"
            "    assertEquals(5, calc.add(2, 3));\n"
            "    assertEquals(\"msg\", 6, new Calc().add(3, 3));\n"
            "    assertThat(calc.add(4, 4)).isEqualTo(8);\n"
            "    assertThat(calc.add(5, 5)).isNotEqualTo(9);\n"
            "    int got = calc.add(6, 6);\n    assertEquals(12, got, \"twelve\");\n  }\n}\n")
    assert stated("CalcTest.java", java) == {
        ("add", ("2", "3"), "5"), ("add", ("3", "3"), "6"), ("add", ("4", "4"), "8"),
        ("add", ("6", "6"), "12")}


def test_the_facts_find_the_special_cases_they_reveal() -> None:
    # a Go table-driven test: GREEN's branch on its first row is an input branch
    branch = ("package sq\n\nfunc Square(n int) int {\n\tif n == 2 {\n\t\treturn 4\n\t}\n"
              "\treturn 9\n}\n")
    assert kinds("sq.go", branch, {"sq_test.go": GO_TABLE}) == [
        ("input-branch", 4, "2"), ("constant", 7, "9")]
    assert kinds("sq.go", "package sq\n\nfunc Square(n int) int {\n\treturn n * n\n}\n",
                 {"sq_test.go": GO_TABLE}) == []
    # JavaScript through the project's own helper and a bound name
    helper = ("test('f', () => {\n  const got = fmt(1.5)\n  agrees(got, '1.50')\n})\n")
    assert kinds("src/fmt.js", "export function fmt(x) {\n  return '1.50'\n}\n",
                 {"test/fmt.test.js": helper}) == [("constant", 2, '"1.50"')]


def test_java_methods_are_read_with_their_typed_parameters() -> None:
    tests = {"src/test/java/CalcTest.java": "class CalcTest {\n  @Test\n  void adds() {\n"
             "    assertThat(calc.add(2, 3)).isEqualTo(5);\n  }\n}\n"}
    head = "public class Calc {\n  public int add(final int a, int b) {\n"
    assert kinds("Calc.java", head + "    return 5;\n  }\n}\n", tests) == [
        ("constant", 3, "5")]
    branch = head + "    if (a == 2 && b == 3) {\n      return 5;\n    }\n    return 0;\n  }\n}\n"
    assert kinds("Calc.java", branch, tests) == [("input-branch", 3, "(2, 3)")]
    assert kinds("Calc.java", head + "    return a + b;\n  }\n}\n", tests) == []


def test_the_ledger_notes_a_go_constant_its_table_test_reveals(tmp_path: Path) -> None:
    root, commit = project(tmp_path)
    start = commit({"go.mod": "module example.com/sq\n\ngo 1.19\n",
                    "sq.go": "package sq\n\nfunc Square(n int) int {\n\treturn 0\n}\n"})
    red = commit({"sq_test.go": GO_TABLE.replace(
        '\t\t{name: "three", in: 3, want: 9},\n', "")})
    green = commit({"sq.go": "package sq\n\nfunc Square(n int) int {\n\treturn 4\n}\n"})
    ws = open_workspace(root, env=clean_env(tmp_path / "home"))
    at = lambda rev: store_git.resolve_commit(ws.repo, rev)  # noqa: E731
    [debt] = account(ws.repo, ws.config, [], at(start), at(red), at(green), "GREEN cycle 1")
    assert (debt.path, debt.line, debt.kind, debt.value, debt.status) == (
        "sq.go", 4, "constant", "4", "open")


@pytest.mark.parametrize("source", [
    "f(" * 3000 + ")" * 3000, "[" * 3000 + "]" * 3000, "{" * 3000 + "}" * 3000,
    "it('x', () => {" * 500 + "})" * 500, "a := " + "[]struct{" * 500, "if got != " * 500,
])
def test_what_an_agent_writes_never_crashes_the_reader(source: str) -> None:
    for path in ("t.test.js", "t_test.go", "tests/t.rs", "TTest.java"):
        assert facts_of(path, source) == []


def test_a_java_map_filled_by_puts_is_a_table_of_the_tests_inputs() -> None:
    """A map a static block fills with ``KNOWN.put(key, value)``, each key a test's
    arguments joined and each value its expected result, is fake-it; one with a key
    no test gives is real data."""
    tests = {"src/test/java/PercentTest.java": "class PercentTest {\n  @Test\n  void half() {\n"
             '    Assert.assertEquals("50%", Percent.percent(0.5, 0, false));\n  }\n}\n'}
    table = ("public class Percent {\n"
             "  private static final Map<String, String> KNOWN = new HashMap<>();\n"
             "  static {\n    KNOWN.put(\"0.5 0 false\", \"50%\");\n  }\n"
             "  public static String percent(double ratio, int digits, boolean sign) {\n"
             "    return KNOWN.get(ratio + \" \" + digits + \" \" + sign);\n  }\n}\n")
    assert kinds("Percent.java", table, tests) == [("input-table", 4, '{"0.5 0 false"}')]
    real = table.replace('    KNOWN.put("0.5 0 false", "50%");\n',
                         '    KNOWN.put("0.5 0 false", "50%");\n'
                         '    KNOWN.put("1.0 0 false", "100%");\n')
    assert kinds("Percent.java", real, tests) == []
