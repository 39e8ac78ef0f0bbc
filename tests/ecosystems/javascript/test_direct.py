"""The mutation gate's direct runner (rgr.ecosystems.javascript.direct): which JavaScript test
commands a mutant's run may start as the runner's own executable, and which keep the
user's command. Nothing here starts a process: the resolution only reads package.json."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from rgr.base.config import TestCommand
from rgr.check.mutation.gate import agrees_with_phase
from rgr.check.verify import TestReport
from rgr.ecosystems import registry
from rgr.ecosystems.base import Status, TestOutcome
from rgr.ecosystems.javascript.direct import direct_command, plain_words, without_hooks
from rgr.ecosystems.test_scope import Scope, left_out, scope_of


def project(root: Path, scripts: dict[str, str], runner: str = "mocha",
            npmrc: bool = False) -> Path:
    """A package with ``scripts`` and ``runner`` installed in node_modules, as npm
    installs it (``.bin/<runner>`` links into the runner's package)."""
    root.mkdir(parents=True, exist_ok=True)
    (root / "package.json").write_text(json.dumps({"name": "demo", "scripts": scripts}))
    package = root / "node_modules" / runner / "bin"
    package.mkdir(parents=True)
    (package / f"{runner}.js").write_text("#!/usr/bin/env node\n")
    (root / "node_modules" / ".bin").mkdir()
    (root / "node_modules" / ".bin" / runner).symlink_to(f"../{runner}/bin/{runner}.js")
    if npmrc:
        (root / ".npmrc").write_text("node-options=--require ./setup.js\n")
    return root


NPM = TestCommand(("npm", "test"), "mocha", (), False, "detected from package.json")


def command(*argv: str, runner: str = "mocha", through_shell: bool = False) -> TestCommand:
    return TestCommand(argv, runner, (), through_shell, "detected from package.json")


@pytest.mark.parametrize(("script", "argv", "expected"), [
    ("mocha --reporter spec --recursive --colors test", ("npm", "test"),
     ("node_modules/.bin/mocha", "--reporter", "spec", "--recursive", "--colors", "test")),
    # quoted words are one argument each, quotes gone, as the shell would pass them
    ("mocha --grep 'a b' \"test/**/*.spec.js\"", ("npm", "test"),
     ("node_modules/.bin/mocha", "--grep", "a b", "test/**/*.spec.js")),
    # what follows `--` reaches the script's runner, as npm passes it
    ("mocha test", ("npm", "test", "--", "--bail"), ("node_modules/.bin/mocha", "test", "--bail")),
    ("mocha", ("npm", "run", "test"), ("node_modules/.bin/mocha",)),
    # a named script (css-what's `npm run test:vi`): that script, not the test script
    ("eslint . && exit 1", ("npm", "run", "unit", "--", "--bail"),
     ("node_modules/.bin/mocha", "test/unit", "--bail")),
])
def test_a_plain_npm_test_script_runs_its_runner_directly(tmp_path: Path, script: str,
                                                           argv: tuple[str, ...],
                                                           expected: tuple[str, ...]) -> None:
    root = project(tmp_path, {"test": script, "lint": "eslint . && exit 1",
                              "unit": "mocha test/unit"})
    direct = direct_command(command(*argv), root)
    assert direct is not None and direct.argv == expected
    assert direct.runner == "mocha" and not direct.shell


def test_npx_and_the_other_runners_run_directly(tmp_path: Path) -> None:
    mocha = project(tmp_path / "m", {})
    direct = direct_command(command("npx", "mocha", "--grep", "native module", "--invert"),
                            mocha)
    assert direct is not None
    assert direct.argv == ("node_modules/.bin/mocha", "--grep", "native module", "--invert")
    jest = project(tmp_path / "j", {"test": "jest"}, runner="jest")
    found = direct_command(command("npm", "test", runner="jest"), jest)
    assert found is not None and found.argv == ("node_modules/.bin/jest",)
    vitest = project(tmp_path / "v", {}, runner="vitest")
    found = direct_command(command("npx", "vitest", "run", runner="vitest"), vitest)
    assert found is not None and found.argv == ("node_modules/.bin/vitest", "run")
    node = project(tmp_path / "n", {"test": "node --test test/"})
    found = direct_command(command("npm", "test", runner="node"), node)
    assert found is not None and found.argv == ("node", "--test", "test/")


@pytest.mark.parametrize("script", [
    "standard && mocha",  # a chain: the lint is part of the user's run
    "mocha; rm -rf ~",
    "mocha || true",
    "mocha | tee out.txt",
    "mocha > out.txt",
    "NODE_ENV=test mocha",  # a variable rgr would have to reproduce
    "mocha 'test'/*.js",  # a glob word with quotes in it: not reproduced
    "mocha test/[[:alpha:]]*.js",  # a character class: outside rgr's glob subset
    "mocha test/x]",
    "mocha*",  # the runner's own name a glob
    "mocha ~/tests",
    "mocha $(touch PWNED)",
    "mocha `touch PWNED`",
    'mocha "$HOME/test"',
    "mocha test # a comment",
    "mocha \\\n test",
    "c8 mocha",  # wrapped: the first word is not the runner
    "npm run test:unit",
    "",
])
def test_anything_a_shell_would_give_a_meaning_keeps_the_users_command(
        tmp_path: Path, script: str) -> None:
    root = project(tmp_path, {"test": script})
    assert direct_command(command("npm", "test"), root) is None


def test_the_scripts_hooks_are_not_run_directly(tmp_path: Path) -> None:
    """A pre/post hook is no test (a lint, most often): the direct run leaves it out,
    and a mutant is killed by a failing test, never by a linter."""
    hooks = project(tmp_path / "pre", {"pretest": "npm run lint", "test": "mocha",
                                       "posttest": "node report.js"})
    direct = direct_command(command("npm", "test"), hooks)
    assert direct is not None and direct.argv == ("node_modules/.bin/mocha",)
    named = project(tmp_path / "named", {"preunit": "npm run build", "unit": "mocha t"})
    direct = direct_command(command("npm", "run", "unit"), named)
    assert direct is not None and direct.argv == ("node_modules/.bin/mocha", "t")


def test_the_users_command_without_its_hooks_is_npms_own(tmp_path: Path) -> None:
    """npm's ``--ignore-scripts`` runs the named script and none of its hooks."""
    hooks = project(tmp_path / "pre", {"pretest": "eslint .", "test": "mocha"})
    plain = without_hooks(command("npm", "test", "--", "--bail"), hooks)
    assert plain is not None
    assert plain.argv == ("npm", "test", "--ignore-scripts", "--", "--bail")
    named = project(tmp_path / "named", {"unit": "mocha", "postunit": "node report.js"})
    plain = without_hooks(command("npm", "run", "unit"), named)
    assert plain is not None and plain.argv == ("npm", "run", "unit", "--ignore-scripts")
    # no hook, nothing to leave out; npx runs no script
    assert without_hooks(command("npm", "run", "unit"), hooks) is None
    assert without_hooks(command("npm", "test"), named) is None
    assert without_hooks(command("npx", "mocha"), hooks) is None
    # the gate asks every ecosystem, whatever the runner npm launches: JavaScript's answers
    again = registry.without_hooks(command("npm", "test", "--", "--bail"), hooks)
    assert again is not None and again.argv == (
        "npm", "test", "--ignore-scripts", "--", "--bail")
    assert registry.without_hooks(command("npm", "test"), named) is None


def test_the_project_npmrc_keeps_the_users_command(tmp_path: Path) -> None:
    """The project's .npmrc can set node-options or script-shell for its scripts."""
    npmrc = project(tmp_path / "rc", {"test": "mocha"}, npmrc=True)
    assert direct_command(command("npm", "test"), npmrc) is None


def test_an_unquoted_glob_is_expanded_as_npms_shell_would(tmp_path: Path) -> None:
    """deep-diff's ``mocha test/**/*.js``: the shell (no globstar) gives the files one
    folder down, sorted; quoted, the runner gets the pattern itself."""
    root = project(tmp_path, {"test": "mocha --recursive test/**/*.js", "q": "mocha 't/*'"})
    for name in ("test/b.js", "test/a.js", "test/.hidden.js", "test/deep/x/y.js",
                 "test/deep/z.js", "test/deep/notes.md"):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("")
    direct = direct_command(command("npm", "test"), root)
    assert direct is not None
    assert direct.argv == ("node_modules/.bin/mocha", "--recursive", "test/deep/z.js")
    quoted = direct_command(command("npm", "run", "q"), root)
    assert quoted is not None and quoted.argv == ("node_modules/.bin/mocha", "t/*")
    empty = project(tmp_path / "empty", {"test": "mocha test/**/*.js"})
    kept = direct_command(command("npm", "test"), empty)  # no match: the word as it is
    assert kept is not None and kept.argv == ("node_modules/.bin/mocha", "test/**/*.js")


def test_a_direct_scope_expands_its_globs_in_the_checkout_of_each_run(
        tmp_path: Path) -> None:
    """The gate reads a direct command again for every run, its left-out test files
    already out: a file left out is no argument, as it would not be to the shell."""
    root = project(tmp_path, {"pretest": "eslint .", "test": "mocha test/*.js"})
    (root / "lib.js").write_text("exports.one = () => 1;\n")
    (root / "test").mkdir()
    (root / "test" / "lib.js").write_text("require('../lib');\nit('one', () => {});\n")
    (root / "test" / "other.js").write_text("it('two', () => {});\n")
    scope = scope_of(command("npm", "test"), root, "lib.js")
    assert scope.direct and scope.left_out == ("test/other.js",) and not scope.exact
    with left_out(root, scope.left_out):
        assert scope.command_in(root).argv == ("node_modules/.bin/mocha", "test/lib.js")
    assert scope.command_in(root).argv == ("node_modules/.bin/mocha", "test/lib.js",
                                           "test/other.js")
    # after a sealed run the checkout holds the sandbox's empty mount point: the
    # executable found when the scope was made stays
    shutil.rmtree(root / "node_modules")
    (root / "node_modules").mkdir()
    assert scope.command_in(root).argv[0] == "node_modules/.bin/mocha"
    (root / "test" / "é.js").write_text("")  # a name rgr does not match: npm's own run
    assert scope.command_in(root).argv == ("npm", "test")
    assert Scope(NPM).command_in(root) is NPM


def test_commands_rgr_cannot_reproduce_keep_the_users_command(tmp_path: Path) -> None:
    root = project(tmp_path, {"test": "mocha"})
    assert direct_command(command("npm", "test", through_shell=True), root) is None
    assert direct_command(command("npx", "--yes", "mocha"), root) is None  # npx's flags
    assert direct_command(command("yarn", "test"), root) is None
    assert direct_command(command("npx", "jest", runner="jest"), root) is None  # not there
    assert direct_command(command("npm", "test", runner="jest"), root) is None  # not it


def test_a_runner_installed_elsewhere_keeps_npx(tmp_path: Path) -> None:
    """A ``.bin`` link leading out of node_modules is not the runner npx would run."""
    root = project(tmp_path / "p", {})
    outside = tmp_path / "elsewhere.js"
    outside.write_text("")
    link = root / "node_modules" / ".bin" / "mocha"
    link.unlink()
    link.symlink_to(outside)
    assert direct_command(command("npx", "mocha"), root) is None


def test_a_hostile_script_never_reaches_a_shell(tmp_path: Path) -> None:
    """The words of an accepted script are arguments, never shell text: a quoted ``;``
    or ``$`` is one literal argument to the runner, as the shell would pass it too;
    unquoted, the script keeps npm's own run."""
    assert plain_words("mocha 'x; touch PWNED' 'a$b'") == ["mocha", "x; touch PWNED", "a$b"]
    assert plain_words('mocha "$(touch PWNED)"') is None
    assert plain_words("mocha x;touch PWNED") is None
    root = project(tmp_path, {"test": "mocha --grep 'x; touch PWNED'"})
    direct = direct_command(command("npm", "test"), root)
    assert direct is not None
    assert direct.argv == ("node_modules/.bin/mocha", "--grep", "x; touch PWNED")
    assert not direct.shell


def test_the_gate_scope_takes_the_direct_command_and_checks_it(tmp_path: Path) -> None:
    """A direct command is never exact: its unmutated run is checked against the
    phase's, and a survivor runs again with the user's command."""
    root = project(tmp_path, {"test": "mocha test"})
    (root / "lib.js").write_text("exports.one = () => 1;\n")
    scope = scope_of(command("npm", "test"), root, "lib.js")
    assert scope.direct and not scope.exact and not scope.narrowed
    assert scope.cmd.argv == ("node_modules/.bin/mocha", "test")
    # when the direct run gives way, the user's own command runs, never the direct one
    assert scope.undirected(command("npm", "test")) == Scope(command("npm", "test"))
    chained = project(tmp_path / "chained", {"test": "eslint . && mocha test"})
    (chained / "lib.js").write_text("exports.one = () => 1;\n")
    kept = scope_of(command("npm", "test"), chained, "lib.js")
    assert not kept.direct and kept.exact and kept.cmd.argv == ("npm", "test")


def report(*outcomes: tuple[str, str | None, Status]) -> TestReport:
    return TestReport(argv=(), exit_code=0, duration_s=0.1, timed_out=False,
                      outcomes={i: TestOutcome(i, f, s, "") for i, f, s in outcomes},
                      collection_errors=(), no_tests_collected=False, output_excerpt="")


def test_a_direct_run_agrees_only_with_the_phases_own_results() -> None:
    """The same tests with the same statuses, in the files the run kept; with ids that
    name no file (Mocha 5) and files left out, only tests the phase ran, alike."""
    phase = report(("a.js::x", "a.js", "passed"), ("b.js::y", "b.js", "passed"))
    whole, narrowed = Scope(NPM), Scope(NPM, ("b.js",))
    assert agrees_with_phase(phase, phase, whole)
    assert agrees_with_phase(report(("a.js::x", "a.js", "passed")), phase, narrowed)
    assert not agrees_with_phase(report(("a.js::x", "a.js", "passed")), phase, whole)
    assert not agrees_with_phase(report(("a.js::x", "a.js", "skipped"),
                                        ("b.js::y", "b.js", "passed")), phase, whole)
    extra = report(("a.js::x", "a.js", "passed"), ("a.js::z", "a.js", "passed"))
    assert not agrees_with_phase(extra, phase, narrowed)
    mocha5 = report(("x", None, "passed"), ("y", None, "passed"))
    assert agrees_with_phase(report(("x", None, "passed")), mocha5, narrowed)
    assert not agrees_with_phase(report(("x", None, "passed"), ("z", None, "passed")),
                                 mocha5, narrowed)
    assert agrees_with_phase(report(("q", None, "failed")), None, whole)  # no phase run
