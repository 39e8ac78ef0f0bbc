"""The token mutator on every common style of writing the brace languages (issue 44,
item 4): negative literals, JavaScript without semicolons, trailing commas, template
literals, raw strings; and the operators added to match the established tools
(docs/mutation.md). Real snippets through the real tokenizer, then the gate on real
repositories with the real ``go test``, ``node --test`` and cargo, one run per fixed
style."""

from __future__ import annotations

from pathlib import Path

from toolchains import ensure_cargo, ensure_go

from rgr.base.config import AdequacyConfig
from rgr.check.mutation.textual import mutants_of
from rgr.ecosystems.mutant import Mutant, apply
from rgr.ecosystems.tokens import tokens_of
from rgr.store.handoff import AdequacyNote
from tests.conftest import make_repo
from tests.gate_helpers import committed, detected_command, measure_commits

ALL = set(range(1, 60))


def kinds(found: list[Mutant]) -> set[tuple[str, str]]:
    return {(m.original, m.replacement) for m in found}


# ------------------------------------------------------------------- negative literals


def test_a_negative_literal_gets_the_mutants_a_positive_one_gets() -> None:
    go = "package bits\n\nfunc Down(x int) int {\n\treturn Shift(x, -2)\n}\n"
    assert {("2", "3"), ("-", "")} <= kinds(mutants_of("bits.go", go, {4}))
    js = "export function init(s) {\n  return s.slice(0, -1);\n}\n"
    found = mutants_of("init.js", js, {2})
    assert {("1", "2"), ("-", ""), ("0", "1")} <= kinds(found)
    # the applied mutants read as the tools' do: -1 -> -2, -1 -> 1
    texts = {apply(js, m).splitlines()[1].strip() for m in found if m.original in "1-"}
    assert {"return s.slice(0, -2);", "return s.slice(0, 1);"} <= texts
    # a binary minus stays arithmetic, never a sign: a - 2, a-2
    binary = mutants_of("m.js", "const d = a - 2 + b-1;\n", {1})
    assert ("-", "") not in kinds(binary) and ("-", "+") in kinds(binary)
    # Rust and Java alike
    assert ("1", "2") in kinds(mutants_of("src/lib.rs", "fn f() -> i32 {\n    -1\n}\n", {2}))
    java = "class A {\n  int f(int x) {\n    return x * -3;\n  }\n}\n"
    assert {("3", "4"), ("-", "")} <= kinds(mutants_of("A.java", java, {3}))


# --------------------------------------------------------------- JavaScript, no semicolons


STANDARD_JS = """export function label(n) {
  if (n > 9) return 'many'
  return String(n)
}

export function chained(s) {
  return s
    .trim()
    .toUpperCase()
}

export function sum(a, b) {
  return a +
    b
}

export const last = (xs) => {
  return xs[xs.length - 1]
}
"""


def test_a_return_without_semicolon_is_mutated_where_its_statement_ends() -> None:
    returns = {m.line: m.original for m in mutants_of("label.js", STANDARD_JS, ALL)
               if m.operator == "return"}
    # the lines whose statement ends there, a one-line if's body among them; never a
    # return continued on the next line
    assert returns == {2: "'many'", 3: "String(n)", 18: "xs[xs.length - 1]"}, returns
    [body] = [m for m in mutants_of("label.js", STANDARD_JS, {2}) if m.operator == "return"]
    assert apply(STANDARD_JS, body).splitlines()[1] == "  if (n > 9) return undefined"
    bare = "function f (a) {\n  if (a === undefined) return\n  g(a)\n}\n"
    [early] = [m for m in mutants_of("f.js", bare, {2}) if m.operator == "return"]
    assert apply(bare, early).splitlines()[1] == "  if (a === undefined) {}"
    # the mutant still parses as the same statement: one return of undefined
    [mutant] = [m for m in mutants_of("label.js", STANDARD_JS, {3}) if m.operator == "return"]
    assert apply(STANDARD_JS, mutant).splitlines()[2] == "  return undefined"


# ---------------------------------------------------------------------- trailing commas


def test_trailing_commas_change_nothing_the_mutator_finds() -> None:
    with_commas = ("const limits = {\n  low: 1,\n  high: 10,\n};\n"
                   "export const pick = (a, b,) => [a + 1, b * 2,];\n")
    found = kinds(mutants_of("limits.js", with_commas, ALL))
    assert {("1", "2"), ("10", "11"), ("+", "-"), ("*", "/"), ("2", "3")} <= found
    go = ("package p\n\nvar table = []int{\n\t1,\n\t-2,\n}\n\n"
          "func F(a, b int,) int {\n\treturn a + b\n}\n")
    assert {("1", "2"), ("2", "3"), ("+", "-")} <= kinds(mutants_of("p.go", go, ALL))


# --------------------------------------------------------------------- template literals


def test_a_template_literal_is_mutated_inside_its_expressions_only() -> None:
    js = ("export function greet(name, n) {\n"
          "  return `hi (1 + 2) ${name.repeat(n + 1)}, ${n > 2 ? `many ${n - 1}` : 'few'}!`\n"
          "}\n")
    found = mutants_of("greet.js", js, {2})
    assert {("+", "-"), ("1", "2"), (">", "<="), ("-", "+"), ("'few'", "''")} <= kinds(found)
    # the literal text (``(1 + 2)``, ``hi``, ``many``) is never mutated
    inner = js.index("(1 + 2)")
    assert not [m for m in found if inner <= m.start < inner + 7], found
    # each piece of the template is one token; its expressions are tokens of their own
    pieces = [t.text for t in tokens_of(js, "js") if t.kind == "template"]
    assert pieces == ["`hi (1 + 2) ${", "}, ${", "`many ${", "}`", "}!`"]
    # the whole return too: its template closes on the line
    assert ("return", "undefined") in {(m.operator, m.replacement) for m in found}
    # a brace of an object inside ${} does not end the expression
    nested = tokens_of("x = `a${ {k: 1}.k + 2 }b` / 2", "js")
    assert [t.text for t in nested if t.kind == "template"] == ["`a${", "}b`"]
    assert ("number", "2") in {(t.kind, t.text) for t in nested[-2:]}
    # a template with nothing to substitute is a string: `a` -> ``
    assert ("`plain`", "``") in kinds(mutants_of("p.js", "const x = `plain`;\n", {1}))


# --------------------------------------------------------------------------- raw strings


def test_raw_strings_are_one_token_whatever_they_hold() -> None:
    rust = ('pub fn tag(s: &str) -> String {\n'
            '    let open = r#"<"a" // not a comment"#; let n = s.len() + 1;\n'
            '    let bytes = b"x\\"y"; let c = b\'"\';\n'
            '    format!("{}{}", open, n)\n}\n')
    found = mutants_of("src/lib.rs", rust, {2, 3})
    assert {('r#"<"a" // not a comment"#', '""'), ("+", "-"), ("1", "2")} <= kinds(found)
    assert [(t.kind, t.text) for t in tokens_of(rust, "rust") if t.text[:2] in ('b"', "b'")
            ] == [("string", 'b"x\\"y"'), ("char", "b'\"'")]
    go = "package p\n\nfunc F() string {\n\treturn `a\\d // \"x` + \"y\"\n}\n"
    assert {("`a\\d // \"x`", "``"), ("+", "-"), ('"y"', '""')} <= kinds(
        mutants_of("p.go", go, {4}))
    python = 'import re\n\n\ndef digits(s):\n    return re.sub(r"\\D+", "", s, count=-1)\n'
    from rgr.ecosystems.python.mutants import mutants_of as python_mutants
    assert {('r"\\D+"', '""'), ("1", "2")} <= kinds(python_mutants("d.py", python, {5}))


# ------------------------------------------------------------------- the added operators


def test_the_operators_the_established_tools_have_in_common() -> None:
    go = ("package p\n\nfunc F(xs []int) int {\n\tn := 0\n"
          "\tfor i := 0; i < len(xs); i++ {\n\t\tn += xs[i] << 1\n\t\tn++\n\t}\n"
          "\treturn n & 7 | -n\n}\n")
    found = kinds(mutants_of("p.go", go, ALL))
    assert {("+=", "-="), ("<<", ">>"), ("++", "--"), ("&", "|"), ("|", "&"),
            ("-", "")} <= found
    # i++ in a for header is left alone: i-- would end only by the timeout
    assert [m.line for m in mutants_of("p.go", go, ALL) if m.original == "++"] == [7]
    # TypeScript writes its types with | and &: JavaScript gets no | / & mutants
    ts = "export function f(x: number | string, y: number): number {\n  return y | 1\n}\n"
    assert not [m for m in mutants_of("f.ts", ts, ALL) if m.original in ("|", "&")]


# ------------------------------------------------------------------ the gate, for real


def _note(tmp_path: Path, before: dict[str, str], after: dict[str, str],
          env: dict[str, str] | None = None) -> AdequacyNote:
    repo, base, tip = committed(tmp_path, before, after)
    return measure_commits(repo, base, tip, detected_command(repo), env=env,
                           settings=AdequacyConfig(jobs=2))


def _all_killed(note: AdequacyNote, path: str, source: str, line: int,
                expected: set[tuple[str, str]]) -> None:
    """Every mutant of ``line`` was run and killed (the note lists only the others), and
    they are the ``expected`` ones and no fewer."""
    made = mutants_of(path, source, {line})
    assert expected <= kinds(made), made
    assert note.tried == len(made) == note.killed and not note.mutants, note
    assert note.decision == "pass", note


def test_go_negative_literals_are_killed_by_go_test(tmp_path: Path) -> None:
    ensure_go()
    files = {"go.mod": "module example.com/bits\n\ngo 1.19\n",
             "shift.go": "package bits\n\nfunc Shift(x, by int) int {\n\treturn x + by\n}\n",
             "down.go": "package bits\n\nfunc Down(x int) int {\n\treturn 0\n}\n",
             "down_test.go": "package bits\n\nimport \"testing\"\n\n"
                             "func TestDown(t *testing.T) {\n"
                             "\tif got := Down(5); got != 3 {\n"
                             "\t\tt.Fatalf(\"Down(5) = %d\", got)\n\t}\n}\n"}
    after = {"down.go": "package bits\n\nfunc Down(x int) int {\n\treturn Shift(x, -2)\n}\n"}
    note = _note(tmp_path, files, after,
                 {"GOCACHE": str(tmp_path / "gocache"), "GOFLAGS": "-mod=mod"})
    _all_killed(note, "down.go", after["down.go"], 4, {("2", "3"), ("-", "")})


NODE_PROJECT = {"package.json": '{"name": "s", "private": true, "type": "module", '
                                '"scripts": {"test": "node --test"}}\n',
                "test/s.test.js": "import test from 'node:test';\n"
                                  "import assert from 'node:assert/strict';\n"
                                  "import { init, greet } from '../s.js';\n\n"
                                  "test('init', () => {\n"
                                  "  assert.strictEqual(init('abc'), 'ab')\n})\n\n"
                                  "test('greet', () => {\n"
                                  "  assert.strictEqual(greet('a', 1), 'hi aa!')\n})\n",
                "s.js": "export function init(s) {\n  return s\n}\n\n"
                        "export function greet(name, n) {\n  return name\n}\n"}
NODE_HONEST = ("export function init(s) {\n  return s.slice(0, -1)\n}\n\n"
               "export function greet(name, n) {\n  return `hi ${name.repeat(n + 1)}!`\n}\n")


def test_standard_style_javascript_is_mutated_and_killed_by_node_test(
        tmp_path: Path) -> None:
    note = _note(tmp_path, NODE_PROJECT, {"s.js": NODE_HONEST})
    # no semicolons: each return has its mutant; -1 gets -2 and 1; ${} is mutated
    made = kinds(mutants_of("s.js", NODE_HONEST, {2, 6}))
    assert {("s.slice(0, -1)", "undefined"), ("1", "2"), ("-", ""),
            ("`hi ${name.repeat(n + 1)}!`", "undefined"), ("+", "-")} <= made
    # nothing inside the template's text; every one of them killed by node --test
    assert not [o for o, _ in made if o in ("hi", "!")]
    assert note.tried == len(mutants_of("s.js", NODE_HONEST, {2, 6})) == note.killed, note
    assert note.decision == "pass", note


def test_a_rust_raw_string_leaves_the_code_after_it_mutated_by_cargo(
        tmp_path: Path) -> None:
    env = ensure_cargo()
    files = {"Cargo.toml": '[package]\nname = "tag"\nversion = "0.1.0"\nedition = "2021"\n',
             ".gitignore": "/target\nCargo.lock\n",
             "src/lib.rs": "pub fn tag(s: &str) -> i64 {\n    0\n}\n",
             "tests/tag.rs": "#[test]\nfn tags() {\n    assert_eq!(tag::tag(\"ab\"), 12);\n}\n"}
    body = ('pub fn tag(s: &str) -> i64 {\n'
            '    let open = r#"<"a" // x"#; (open.len() + s.len() * 2) as i64 + -1\n}\n')
    note = _note(tmp_path, files, {"src/lib.rs": body}, env)
    _all_killed(note, "src/lib.rs", body, 2, {('r#"<"a" // x"#', '""'), ("+", "-"),
                                             ("*", "/"), ("2", "3"), ("1", "2"), ("-", "")})


# ----------------------------------------------------------- Python: an early return


EARLY = ("def put(table, name):\n    if name is None:\n        return\n"
         "    table[name] = 1\n")


def test_an_early_bare_return_is_mutated_and_a_final_one_is_not() -> None:
    from rgr.ecosystems.python.mutants import mutants_of as python_mutants
    assert ("return", "pass") in kinds(python_mutants("put.py", EARLY, {3}))
    final = "def put(table, name):\n    table[name] = 1\n    return\n"
    assert python_mutants("put.py", final, {3}) == []
    # in place and signs, as the token languages
    signs = "def f(x, t):\n    t += x\n    return -x + t\n"
    assert {("t += x", "t -= x"), ("-x", "x")} <= kinds(python_mutants("f.py", signs, {2, 3}))


def test_an_early_return_no_test_reaches_is_over_implementation_under_pytest(
        tmp_path: Path) -> None:
    from tests.check.mutation.test_mutation import gate
    repo = make_repo(tmp_path)
    test = ("from put import put\n\n\ndef test_put():\n    table = {}\n"
            "    put(table, 'a')\n    assert table == {'a': 1}\n")
    base = repo.commit("test: put", {"put.py": "def put(table, name):\n    pass\n",
                                     "tests/test_put.py": test})
    tip = repo.commit("feat: put", {"put.py": EARLY})
    note = gate(repo, base, tip)
    assert note.decision == "over-implemented", note
    assert ("return", "pass", "uncovered") in {
        (m.original, m.replacement, m.status) for m in note.mutants}, note
