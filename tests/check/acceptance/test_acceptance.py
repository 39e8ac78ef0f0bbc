"""The examiner's parts on their own: the public interface read from the tests' imports
(signatures, never bodies), where the acceptance file goes, where it is kept (outside
the repository, under HOME, owner-only), how outcomes become words, and the config."""

from __future__ import annotations

from pathlib import Path

import pytest

from rgr.base.config import load_config
from rgr.base.errors import ConfigError
from rgr.check.acceptance.interface import public_interface
from rgr.check.acceptance.placing import acceptance_path
from rgr.check.acceptance.verdict import Declared, did_not_run, missing_in_words, outcomes
from rgr.check.verify import TestOutcome, TestReport
from rgr.store import acceptance_store, git
from tests.conftest import make_repo

CALC = '''"""Calculator."""
import os

SECRET_TABLE = {(2, 3): 5}


def add(a: int, b: int = 0) -> int:
    """Adds."""
    return SECRET_TABLE[(a, b)]


def _helper(x):
    return x


class Account(Base):
    rate = 3

    def __init__(self, owner):
        self.owner = owner

    def deposit(self, amount):
        return 42

    def _audit(self):
        pass
'''


def reader(files: dict[str, str]):  # type: ignore[no-untyped-def]
    return files.get


def test_the_interface_is_the_imported_names_signatures_and_nothing_of_their_bodies() -> None:
    files = {"src/calc.py": CALC,
             "tests/test_calc.py": "from calc import add, Account\nimport pytest\n\n"
                                   "def test_adds():\n    assert add(2, 3) == 5\n"}
    shown = public_interface(["tests/test_calc.py"], reader(files))
    assert shown == ["# src/calc.py (module calc)", "def add(a: int, b: int=0) -> int",
                     "class Account(Base)", "    def __init__(self, owner)",
                     "    def deposit(self, amount)"]
    text = "\n".join(shown)
    for hidden in ("SECRET_TABLE", "return", "Adds.", "_helper", "_audit", "42", "rate"):
        assert hidden not in text


def test_a_module_imported_whole_shows_the_attributes_the_tests_use() -> None:
    files = {"calc.py": CALC, "test_calc.py": "import calc as c\n\ndef test_x():\n"
                                              "    assert c.add(1, 2) == 3\n"}
    assert public_interface(["test_calc.py"], reader(files)) == [
        "# calc.py (module calc)", "def add(a: int, b: int=0) -> int"]


CALC_JS = """// adds: SECRET_WORD
import fs from 'fs';
const TABLE = { '2,3': 5 };

export function add(a, b = 0) {
  return TABLE[`${a},${b}`];
}

export const subtract = (a, b) => a - b;
export const LIMIT = 42;
function helper(x) { return x }
export class Account extends Base {
  constructor(owner) {
    this.owner = owner;
  }
  deposit(amount) {
    return 42;
  }
  _audit() {}
  static open(name, { limit = 5 } = {}) {
    if (name) { return 1 }
  }
}
export default async function main(argv) {
  return 1;
}
"""
CALC_GO = """package calc

import "fmt"

// Add adds: SECRET_WORD
func Add(a, b int) int {
\treturn a + b
}

func (acc *Account) Deposit(amount int) error {
\treturn nil
}

func helper() {}

type Account struct {
\tOwner string
}

const Limit = 99

func Recv(ch <-chan int) int {
\treturn <-ch
}
"""


def _hides_the_bodies(shown: list[str]) -> None:
    text = "\n".join(shown)
    for hidden in ("SECRET_WORD", "return", "TABLE", "42", "99", "a - b", "helper", "_audit",
                   "fmt", "subtract"):
        assert hidden not in text, hidden


def test_javascript_shows_the_imported_declarations_heads_and_nothing_of_their_bodies(
        ) -> None:
    files = {"src/calc.js": CALC_JS,
             "src/calc.test.js": "import { it, expect } from 'vitest';\n"
                                 "import main, { add, Account, LIMIT as L } from './calc.js';\n"
                                 "it('adds', () => expect(add(2, 3)).toBe(5));\n"}
    shown = public_interface(["src/calc.test.js"], reader(files))
    assert shown == ["# src/calc.js (module ./calc.js)", "export function add(a, b = 0)",
                     "export const LIMIT", "export class Account extends Base",
                     "    constructor(owner)", "    deposit(amount)",
                     "    static open(name, { limit = 5 } = {})",
                     "export default async function main(argv)"]
    _hides_the_bodies(shown)
    # CommonJS: a whole module bound by require shows the attributes the test reads;
    # TypeScript's './x.js' is x.ts
    files = {"lib/m.cjs": "function mul(a, b) {\n  return a * b;\n}\n"
                          "exports.div = function (a, b) { return a / b };\n"
                          "module.exports = { mul };\n",
             "test/m.test.cjs": "const m = require('../lib/m.cjs');\n"
                                "test('x', () => { m.mul(1, 2); m.div(4, 2) });\n",
             "src/sum.ts": "export const sum = (xs: number[]): number => xs.reduce(f, 0);\n",
             "src/sum.test.ts": "import { sum } from './sum.js';\n"}
    assert public_interface(["test/m.test.cjs", "src/sum.test.ts"], reader(files)) == [
        "# src/sum.ts (module ./sum.js)", "export const sum = (xs: number[]): number =>",
        "# lib/m.cjs (module ../lib/m.cjs)", "function mul(a, b)",
        "exports.div = function (a, b)"]


def test_a_regular_expression_literal_with_a_quote_hides_no_declaration() -> None:
    # The declarations are read with the mutator's tokenizer: a backtick or a quote inside
    # a regular-expression literal starts no string (a string-only scanner read the rest
    # of the file as one template literal and showed nothing).
    files = {"src/q.js": "const TICK = /`/g;\nconst QUOTE = /\"/;\n"
                         "export function strip(text) {\n  return text.replace(TICK, '');\n}\n",
             "src/q.test.js": "import { strip } from './q.js';\n"}
    assert public_interface(["src/q.test.js"], reader(files)) == [
        "# src/q.js (module ./q.js)", "export function strip(text)"]


def test_go_shows_the_packages_exported_declarations_the_test_uses() -> None:
    files = {"calc/calc.go": CALC_GO, "calc/other.go": "package calc\n\nfunc Unused() {}\n",
             "calc/calc_test.go": "package calc\n\nimport \"testing\"\n\n"
                                  "func TestAdd(t *testing.T) {\n\tacc := &Account{}\n"
                                  "\tacc.Deposit(Add(2, 3) + Limit + Recv(nil))\n}\n"}

    def listing(folder: str) -> list[str]:
        return sorted(p for p in files if p.startswith(folder + "/"))

    shown = public_interface(["calc/calc_test.go"], reader(files), listing)
    assert shown == ["# calc/calc.go (package calc)", "func Add(a, b int) int",
                     "func (acc *Account) Deposit(amount int) error", "type Account struct",
                     "const Limit", "func Recv(ch <-chan int) int"]
    _hides_the_bodies(shown)


def test_a_packages_files_are_listed_from_the_examined_commit(tmp_path: Path) -> None:
    """Go's interface reads the test's folder at the examined commit, not the tree."""
    repo = make_repo(tmp_path)
    commit = repo.commit("calc", {"calc/calc.go": CALC_GO, "calc/calc_test.go": "package calc\n",
                                  "calc/sub/x.go": "package sub\n", "go.mod": "module m\n"})
    (repo.path / "calc" / "later.go").write_text("package calc\n")  # not committed
    opened = git.open_repo(repo.path)
    at = git.resolve_commit(opened, commit).id
    assert git.folder_files(opened, at, "calc") == ["calc/calc.go", "calc/calc_test.go"]
    assert git.folder_files(opened, at, "") == ["README.md", "go.mod"]
    assert git.folder_files(opened, at, "nowhere") == []
    assert git.folder_files(opened, at, "go.mod") == []


def test_other_languages_and_library_imports_show_the_test_files_import_lines() -> None:
    files = {"test/calc.test.js": "import { add } from 'calc-lib';\n"
                                  "test('adds', () => expect(add(2, 3)).toBe(5));\n",
             "tests/calc.rs": "use calc::add;\n\n#[test]\nfn adds() {}\n"}
    assert public_interface(["test/calc.test.js", "tests/calc.rs"], reader(files)) == [
        "test/calc.test.js: import { add } from 'calc-lib';", "tests/calc.rs: use calc::add;"]


@pytest.mark.parametrize(("test_file", "placed"), [
    ("tests/test_calc.py", "tests/test_rgr_acceptance.py"),
    ("calc_test.py", "rgr_acceptance_test.py"),
    ("calc/calc_test.go", "calc/rgr_acceptance_test.go"),
    ("test/calc.test.js", "test/rgr_acceptance.test.js"),
    ("src/calc.spec.ts", "src/rgr_acceptance.spec.ts"),
    ("spec/calc_spec.rb", "spec/rgr_acceptance_spec.rb"),
    ("src/test/java/CalcTest.java", "src/test/java/RgrAcceptanceTest.java"),
    ("tests/calc.rs", "tests/rgr_acceptance.rs"),
])
def test_the_acceptance_file_sits_beside_a_run_test_named_as_its_runner_collects(
        test_file: str, placed: str) -> None:
    assert acceptance_path(test_file) == placed


def test_the_tests_are_kept_under_home_owner_only_and_read_back(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {"HOME": str(home)}
    kept = acceptance_store.save(env, tmp_path / "repo" / ".git", "r1", "def test_x(): pass\n",
                                 "tests/test_rgr_acceptance.py", [("test_x", "does x")])
    assert kept.folder.is_relative_to(home / ".local" / "state" / "rgr" / "acceptance")
    assert (kept.folder.stat().st_mode & 0o777) == 0o700
    assert ((kept.folder / "tests.txt").stat().st_mode & 0o777) == 0o600
    again = acceptance_store.load(env, tmp_path / "repo" / ".git", "r1")
    assert again is not None and again.text == kept.text and again.sha256 == kept.sha256
    assert again.declared == [("test_x", "does x")]
    assert acceptance_store.load(env, tmp_path / "other" / ".git", "r1") is None


def test_a_state_directory_outside_home_is_not_used(tmp_path: Path) -> None:
    """The sandbox masks HOME; a folder elsewhere might be shown to an agent."""
    env = {"HOME": str(tmp_path / "home"), "XDG_STATE_HOME": "/var/lib/somewhere"}
    assert acceptance_store.state_root(env) == tmp_path / "home" / ".local" / "state" / "rgr"
    inside = {"HOME": str(tmp_path / "home"), "XDG_STATE_HOME": str(tmp_path / "home" / "st")}
    assert acceptance_store.state_root(inside) == tmp_path / "home" / "st" / "rgr"
    with pytest.raises(Exception, match="cannot name a folder"):
        acceptance_store.folder_for(env, tmp_path, "../escape")


def report(outcomes_: dict[str, str], errors: tuple[str, ...] = ()) -> TestReport:
    return TestReport(argv=("pytest",), exit_code=1, duration_s=0.1, timed_out=False,
                      outcomes={i: TestOutcome(i, i.split("::")[0], s, "")  # type: ignore[arg-type]
                                for i, s in outcomes_.items()},
                      collection_errors=errors, no_tests_collected=False,
                      output_excerpt="ImportError: cannot import name 'subtract'")


def test_outcomes_become_the_examiners_words_and_unknown_tests_are_not_dropped() -> None:
    run = report({"tests/test_calc.py::test_adds": "passed",
                  "tests/test_rgr_acceptance.py::test_sums": "passed",
                  "tests/test_rgr_acceptance.py::test_strings[a]": "failed",
                  "tests/test_rgr_acceptance.py::test_undeclared": "passed"})
    found = outcomes(run, "tests/test_rgr_acceptance.py",
                     [Declared("test_sums", "sums two numbers"),
                      Declared("test_strings", "accepts strings"),
                      Declared("test_gone", "never ran")])
    assert [(o.name, o.outcome) for o in found] == [
        ("test_sums", "passed"), ("test_strings", "failed"), ("test_gone", "missing"),
        ("test_undeclared", "passed")]
    assert missing_in_words(found) == ["accepts strings", "never ran"]
    assert did_not_run(run, "tests/test_rgr_acceptance.py") is None
    # a JavaScript runner's ids are <file>::<describe>::<title>, titles with spaces
    run = report({"src/rgr_acceptance.test.js::add::sums two integers": "passed",
                  "src/rgr_acceptance.test.js::sums strings": "failed"})
    found = outcomes(run, "src/rgr_acceptance.test.js",
                     [Declared("sums two integers", "sums integers"),
                      Declared("sums strings", "accepts strings")])
    assert [(o.name, o.outcome) for o in found] == [
        ("sums two integers", "passed"), ("sums strings", "failed")]
    # Go's ids name the package and the test, no file: the declared names are the file's
    run = report({"example.com/calc::TestAdds": "passed",
                  "example.com/calc::TestAcceptanceSums": "failed"})
    declared = [Declared("TestAcceptanceSums", "sums two numbers")]
    assert did_not_run(run, "rgr_acceptance_test.go", declared) is None
    assert [(o.name, o.outcome) for o in outcomes(run, "rgr_acceptance_test.go", declared)
            ] == [("TestAcceptanceSums", "failed")]


def test_a_file_that_did_not_load_is_said_so() -> None:
    run = report({"tests/test_calc.py::test_adds": "passed"},
                 errors=("tests/test_rgr_acceptance.py",))
    why = did_not_run(run, "tests/test_rgr_acceptance.py")
    assert why is not None and why.startswith("tests/test_rgr_acceptance.py did not load")


def test_acceptance_is_on_by_default_and_the_variable_sets_its_mode(tmp_path: Path) -> None:
    assert load_config(tmp_path, env={}).acceptance.mode == "on"
    (tmp_path / "tdd.toml").write_text('[acceptance]\nmode = "report"\nrounds = 3\n')
    config = load_config(tmp_path, env={"TDD_ACCEPTANCE_MODE": "off"})
    assert (config.acceptance.mode, config.acceptance.rounds) == ("off", 3)
    assert load_config(tmp_path, env={}).acceptance.mode == "report"
    with pytest.raises(ConfigError, match="acceptance"):
        load_config(tmp_path, env={"TDD_ACCEPTANCE_MODE": "sometimes"})
