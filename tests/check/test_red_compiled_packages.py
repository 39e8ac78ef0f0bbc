"""A Go module with several packages: RED's test of a function not written yet fails to
compile its own package only. ``go test ./...`` builds each package apart, so the others
still run and count; the package's hidden tests are held to GREEN's run (against the
report before RED). Real go, real files in tmp_path, no network."""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path

import pytest
from toolchains import ensure_cargo, ensure_go

from rgr.check.guards import check_tests, hidden_tests, hides_tests
from rgr.check.verify import TestReport, run_tests
from rgr.ecosystems.go.runner import packages_reaching
from rgr.ecosystems.registry import detect_test_command
from rgr.ecosystems.rust import cargo_workspace
from rgr.store.handoff import Phase
from tests.check.mutation.test_mutation_probe_exit import gate

CALC_TEST = ('package calc\n\nimport "testing"\n\n'
             'func TestAdd(t *testing.T) {\n\tif Add(1, 2) != 3 {\n\t\tt.Fatal("add")\n\t}\n}\n')
DOUBLE_TEST = 'func TestDouble(t *testing.T) {\n\tif Double(2) != 4 {\n\t\tt.Fatal("d")\n\t}\n}\n'
WORDS_TEST = ('package words\n\nimport "testing"\n\n'
              'func TestUp(t *testing.T) {\n\tif Up("a") != "A" {\n\t\tt.Fatal("up")\n\t}\n}\n')
MORE_WORDS = 'func TestUpEmpty(t *testing.T) {\n\tif Up("") != "" {\n\t\tt.Fatal("e")\n\t}\n}\n'
CALC = "package calc\n\nfunc Add(a, b int) int { return a + b }\n"
WORDS = ('package words\n\nimport "strings"\n\n'
         'func Up(s string) string { return strings.ToUpper(s) }\n')


def write(root: Path, contents: dict[str, str]) -> None:
    for name, text in contents.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def run(root: Path, tmp_path: Path) -> TestReport:
    cmd = detect_test_command(root)
    assert cmd is not None and cmd.runner == "go"
    return run_tests(cmd, root, timeout=240, env={
        **os.environ, "GOCACHE": str(tmp_path / "gocache"), "GOFLAGS": "-mod=mod"})


def module(tmp_path: Path) -> tuple[Path, TestReport]:
    ensure_go()
    root = tmp_path / "m"
    write(root, {"go.mod": "module example.com/m\n\ngo 1.19\n", "calc/calc.go": CALC,
                 "calc/calc_test.go": CALC_TEST, "words/words.go": WORDS,
                 "words/words_test.go": WORDS_TEST})
    start = run(root, tmp_path)
    assert start.all_passed and set(start.outcomes) == {
        "example.com/m/calc::TestAdd", "example.com/m/words::TestUp"}, start.output_excerpt
    return root, start


def test_a_red_hides_only_its_own_package_and_green_is_held_to_the_rest(
        tmp_path: Path) -> None:
    root, start = module(tmp_path)
    write(root, {"calc/calc_test.go": CALC_TEST + "\n" + DOUBLE_TEST})
    red = run(root, tmp_path)
    # the other package ran and counts; the broken one is hidden, not removed
    assert set(red.outcomes) == {"example.com/m/words::TestUp"}, red.output_excerpt
    assert red.load_kinds == {"calc/calc_test.go": "missing-code"}
    assert hides_tests(red) and hidden_tests(start, red) == {"example.com/m/calc::TestAdd"}
    assert check_tests(Phase.RED, start, red) == []
    write(root, {"calc/calc.go": CALC + "\nfunc Double(n int) int { return 2 * n }\n"})
    green = run(root, tmp_path)
    assert green.all_passed and len(green.outcomes) == 3, green.output_excerpt
    assert check_tests(Phase.GREEN, start, green, red_report=red) == []
    # a test GREEN adds to a package that ran in RED's report is GREEN changing tests
    write(root, {"words/words_test.go": WORDS_TEST + "\n" + MORE_WORDS})
    added = run(root, tmp_path)
    assert [v.rule for v in check_tests(Phase.GREEN, start, added, red_report=red)] == [
        "green-changes-tests"]


def test_a_red_that_removes_a_test_of_a_package_that_still_runs_is_caught(
        tmp_path: Path) -> None:
    root, start = module(tmp_path)
    write(root, {"calc/calc_test.go": CALC_TEST + "\n" + DOUBLE_TEST,
                 "words/words_test.go": WORDS_TEST.replace("TestUp", "TestUpper")})
    red = run(root, tmp_path)
    rules = [(v.rule, v.message) for v in check_tests(Phase.RED, start, red)]
    assert ("test-removed", "test example.com/m/words::TestUp no longer exists") in rules
    assert not any("calc::TestAdd" in message for _rule, message in rules)


def test_a_test_dropped_under_the_compile_error_is_caught_by_green(tmp_path: Path) -> None:
    root, start = module(tmp_path)
    write(root, {"calc/calc_test.go": CALC_TEST.replace("TestAdd", "TestGone") + "\n"
                 + DOUBLE_TEST})
    red = run(root, tmp_path)
    assert check_tests(Phase.RED, start, red) == []
    write(root, {"calc/calc.go": CALC + "\nfunc Double(n int) int { return 2 * n }\n"})
    green = run(root, tmp_path)
    assert green.all_passed, green.output_excerpt
    assert "test-removed" in [v.rule for v in check_tests(Phase.GREEN, start, green,
                                                           red_report=red)]


# ------------------------------------------------------------------ the gate's packages


def test_a_go_change_reaches_its_package_and_every_importer_only(tmp_path: Path) -> None:
    root = tmp_path / "m"
    write(root, {"go.mod": "module example.com/m\n\ngo 1.19\n", "calc/calc.go": CALC,
                 "words/words.go": WORDS, "words/words_test.go": WORDS_TEST,
                 "app/app.go": 'package app\n\nimport (\n\t"fmt"\n\t"example.com/m/calc"\n)\n\n'
                               'func Total() string { return fmt.Sprint(calc.Add(2, 3)) }\n',
                 "cmd/run/main.go": 'package main\n\nimport x "example.com/m/app"\n\n'
                                    'func main() { println(x.Total()) }\n',
                 "calc/calc_ext_test.go": 'package calc_test\n\nimport "example.com/m/calc"\n'
                                          '\nvar _ = calc.Add\n',
                 "main.go": 'package main\n\nimport "example.com/m/words"\n\n'
                            'func main() { println(words.Up("x")) }\n'})
    assert packages_reaching(root, "calc/calc.go") == ("./app", "./calc", "./cmd/run")
    assert packages_reaching(root, "words/words.go") == (".", "./words")
    assert packages_reaching(root, "main.go") == (".",)
    assert packages_reaching(tmp_path, "calc.go") is None  # no go.mod


def test_the_gate_runs_a_go_mutant_against_the_packages_importing_it(tmp_path: Path) -> None:
    """calc has no test of its own: only app's test, importing it, kills its mutant."""
    ensure_go()
    app_test = ('package app\n\nimport "testing"\n\nfunc TestTotal(t *testing.T) {\n'
                '\tif Total() != "5" {\n\t\tt.Fatal(Total())\n\t}\n}\n')
    files = {"go.mod": "module example.com/m\n\ngo 1.19\n", "words/words.go": WORDS,
             "words/words_test.go": WORDS_TEST, "app/app_test.go": app_test,
             "app/app.go": 'package app\n\nimport (\n\t"fmt"\n\t"example.com/m/calc"\n)\n\n'
                           'func Total() string { return fmt.Sprint(calc.Add(2, 3)) }\n'}
    stub = "package calc\n\nfunc Add(a, b int) int { return 5 }\n"
    note = gate(tmp_path, {**files, "calc/calc.go": stub}, {**files, "calc/calc.go": CALC},
                {"GOCACHE": str(tmp_path / "gocache"), "GOFLAGS": "-mod=mod"})
    assert note.killed >= 1 and note.survived == 0 and note.decision == "pass", note


# ------------------------------------------------------------------ a Rust workspace

VIRTUAL = '[workspace]\nmembers = ["calc", "words", "tools"]\n'
ROOTED = '[package]\nname = "app"\nversion = "0.1.0"\n\n' + VIRTUAL
CRATE = '[package]\nname = "{}"\nversion = "0.1.0"\nedition = "2021"\n'
ADD_TEST = "#[test]\nfn adds() {\n    assert_eq!(calc::add(1, 2), 3);\n}\n"
DOUBLE_RS = "\n#[test]\nfn doubles() {\n    assert_eq!(calc::double(2), 4);\n}\n"
UP_TEST = '#[test]\nfn ups() {\n    assert_eq!(words::up("a"), "A");\n}\n'
UNIT_TEST = ("\n#[cfg(test)]\nmod tests {\n    #[test]\n    fn works() {\n"
             "        assert!(super::ok());\n    }\n}\n")


def cargo_run(root: Path, tmp_path: Path, env: dict[str, str]) -> TestReport:
    cmd = detect_test_command(root)
    assert cmd is not None and cmd.runner == "cargo"
    return run_tests(cmd, root, timeout=240, env={
        **os.environ, **env, "CARGO_TARGET_DIR": str(tmp_path / "target")})


def workspace(tmp_path: Path) -> tuple[Path, TestReport, dict[str, str]]:
    """Two crates, each with a unit test in src/lib.rs (one id apart only by its crate)
    and an integration test."""
    env = ensure_cargo()
    root = tmp_path / "ws"
    write(root, {
        "Cargo.toml": '[workspace]\nmembers = ["crates/*"]\nresolver = "2"\n',
        "crates/calc/Cargo.toml": CRATE.format("calc"),
        "crates/calc/src/lib.rs": "pub fn add(a: i32, b: i32) -> i32 {\n    a + b\n}\n\n"
                                  "fn ok() -> bool {\n    true\n}\n" + UNIT_TEST,
        "crates/calc/tests/add.rs": ADD_TEST,
        "crates/words/Cargo.toml": CRATE.format("words"),
        "crates/words/src/lib.rs": "pub fn up(s: &str) -> String {\n    s.to_uppercase()\n}\n\n"
                                   "fn ok() -> bool {\n    true\n}\n" + UNIT_TEST,
        "crates/words/tests/up.rs": UP_TEST,
    })
    start = cargo_run(root, tmp_path, env)
    assert start.all_passed and set(start.outcomes) == {
        "crates/calc/src/lib.rs::tests::works", "crates/calc/tests/add.rs::adds",
        "crates/words/src/lib.rs::tests::works", "crates/words/tests/up.rs::ups"}, \
        start.output_excerpt
    assert start.outcomes["crates/calc/tests/add.rs::adds"].file == "crates/calc/tests/add.rs"
    return root, start, env


def test_a_red_in_one_crate_hides_only_that_crate_and_green_is_held_to_the_rest(
        tmp_path: Path) -> None:
    root, start, env = workspace(tmp_path)
    write(root, {"crates/calc/tests/add.rs": ADD_TEST + DOUBLE_RS})
    red = cargo_run(root, tmp_path, env)
    # cargo stopped every crate at calc's error; rgr ran words again without calc
    assert set(red.outcomes) == {"crates/words/src/lib.rs::tests::works",
                                 "crates/words/tests/up.rs::ups"}, red.output_excerpt
    assert "--exclude" in red.output and red.exit_code != 0
    assert red.load_kinds == {"crates/calc/tests/add.rs": "missing-code"}
    assert hidden_tests(start, red) == {"crates/calc/src/lib.rs::tests::works",
                                        "crates/calc/tests/add.rs::adds"}
    assert check_tests(Phase.RED, start, red) == []
    write(root, {"crates/calc/src/lib.rs": (root / "crates/calc/src/lib.rs").read_text()
                 + "\npub fn double(n: i32) -> i32 {\n    2 * n\n}\n"})
    green = cargo_run(root, tmp_path, env)
    assert green.all_passed and len(green.outcomes) == 5, green.output_excerpt
    assert check_tests(Phase.GREEN, start, green, red_report=red) == []


def test_a_red_that_breaks_a_test_of_a_crate_that_still_runs_is_caught(
        tmp_path: Path) -> None:
    root, start, env = workspace(tmp_path)
    write(root, {"crates/calc/tests/add.rs": ADD_TEST + DOUBLE_RS,
                 "crates/words/tests/up.rs": '#[test]\nfn ups() {\n    assert_eq!('
                                             'words::up("a"), "B");\n}\n'})
    red = cargo_run(root, tmp_path, env)
    assert [v.rule for v in check_tests(Phase.RED, start, red)] == ["red-breaks-tests"]


def test_a_wrong_red_in_a_workspace_is_not_run_again(tmp_path: Path) -> None:
    """A compile error of the test's own making rejects the RED as it stands: no second
    run is spent on the other crates."""
    root, start, env = workspace(tmp_path)
    write(root, {"crates/calc/tests/add.rs": ADD_TEST + "\n#[test]\nfn broken() {\n"
                 "    let x: i32 = \"text\";\n}\n"})
    red = cargo_run(root, tmp_path, env)
    assert red.outcomes == {} and "--exclude" not in red.output
    assert [v.rule for v in check_tests(Phase.RED, start, red)] == ["tests-do-not-load"]


@pytest.mark.parametrize(("argv", "manifest", "rerun"), [
    (("cargo", "test", "--no-fail-fast"), VIRTUAL,
     ("cargo", "test", "--no-fail-fast", "--workspace", "--exclude", "calc")),
    (("cargo", "test", "--no-fail-fast", "--", "--nocapture"), VIRTUAL,
     ("cargo", "test", "--no-fail-fast", "--workspace", "--exclude", "calc", "--",
      "--nocapture")),
    (("cargo", "test", "--workspace", "--exclude", "calc"), VIRTUAL, None),  # nothing new
    (("cargo", "test", "-p", "calc"), VIRTUAL, None),  # the user chose the crate
    (("cargo", "test"), ROOTED, None),  # a root package: plain cargo test runs only it
    (("cargo", "test", "--workspace"), ROOTED,
     ("cargo", "test", "--workspace", "--exclude", "calc")),
])
def test_the_rerun_leaves_out_only_the_crates_that_did_not_compile(
        tmp_path: Path, argv: tuple[str, ...], manifest: str,
        rerun: tuple[str, ...] | None) -> None:
    write(tmp_path, {"Cargo.toml": manifest, "calc/Cargo.toml": CRATE.format("calc"),
                     "words/Cargo.toml": CRATE.format("words"),
                     "tools/Cargo.toml": CRATE.format("tools")})
    space = cargo_workspace.workspace(tmp_path)
    assert space is not None
    stderr = 'error: could not compile `calc` (test "add") due to 1 previous error\n'
    assert cargo_workspace.rerun_without(space, argv, stderr) == rerun


def test_a_target_file_several_crates_have_is_told_apart_by_its_binary(tmp_path: Path) -> None:
    write(tmp_path, {"Cargo.toml": VIRTUAL, "calc/Cargo.toml": CRATE.format("calc"),
                     "words/Cargo.toml": CRATE.format("words") + '\n[lib]\nname = "wordy"\n',
                     "calc/src/lib.rs": "", "words/src/lib.rs": "",
                     "calc/tests/it.rs": "", "words/tests/it.rs": ""})
    space = cargo_workspace.workspace(tmp_path)
    assert space is not None and {m.folder for m in space.members} == {"calc", "words"}
    folder = partial(cargo_workspace.crate_folder, space, tmp_path)
    assert folder("src/lib.rs", "wordy-0a1b", None) == "words"
    assert folder("src/lib.rs", "calc-0a1b", None) == "calc"
    # tests/it.rs in both, binary "it": the crate whose targets cargo was running
    assert folder("tests/it.rs", "it-99", "words") == "words"
    assert folder("tests/it.rs", "it-99", None) is None
