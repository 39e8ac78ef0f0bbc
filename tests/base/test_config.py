"""rgr.base.config: precedence, error messages, test-command detection, the glob matcher."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from rgr.base.config import (
    DEFAULT_TEST_FILE_GLOBS,
    Config,
    GlobSet,
    TestCommand,
    find_project_root,
    load_config,
)
from rgr.base.errors import ConfigError
from rgr.ecosystems.registry import detect_test_command, guess_runner, resolve_test_command


def write_toml(root: Path, text: str) -> Path:
    path = root / "tdd.toml"
    path.write_text(text, encoding="utf-8")
    return path


def config_error(
    root: Path, env: dict[str, str] | None = None, flags: dict[str, object] | None = None
) -> ConfigError:
    with pytest.raises(ConfigError) as info:
        load_config(root, env=env or {}, flags=flags)
    return info.value


# --------------------------------------------------------------------------- precedence


def test_defaults_without_a_file(tmp_path: Path) -> None:
    config = load_config(tmp_path, env={})
    assert config.test_command is None
    assert config.test_shell is False
    assert config.junit_xml == []
    assert config.max_retries == 3
    assert config.command_timeout == 120
    assert config.agent_timeout == 1800
    assert config.max_turns == 40
    assert config.model is None
    assert config.notes_ref == "refs/notes/tdd-handoffs"
    assert config.agent_binary == "claude"
    assert config.branch_prefix == "rgr/"
    assert config.test_file_globs == list(DEFAULT_TEST_FILE_GLOBS)
    assert config.source_of("max_retries") == "default"


def test_flag_beats_environment_beats_file_beats_default(tmp_path: Path) -> None:
    path = write_toml(tmp_path, 'max_retries = 1\nmodel = "from-file"\nmax_turns = 7\n')
    env = {"TDD_MAX_RETRIES": "2", "TDD_MODEL": "from-env"}
    flags: dict[str, object] = {"max_retries": 3, "model": None}

    config = load_config(tmp_path, env=env, flags=flags)

    assert config.max_retries == 3 and config.source_of("max_retries") == "--max-retries"
    assert config.model == "from-env" and config.source_of("model") == "TDD_MODEL"
    assert config.max_turns == 7 and config.source_of("max_turns") == str(path)
    assert config.agent_timeout == 1800 and config.source_of("agent_timeout") == "default"
    assert load_config(tmp_path, env={}).max_retries == 1
    assert load_config(tmp_path, env=env).max_retries == 2


def test_every_environment_variable_is_read(tmp_path: Path) -> None:
    env = {
        "TDD_TEST_COMMAND": "python -m pytest -q 'a b'",
        "TDD_MAX_RETRIES": "0",
        "TDD_MODEL": "sonnet",
        "TDD_AGENT_BINARY": "/opt/claude",
        "TDD_COMMAND_TIMEOUT": "2.5",
    }
    config = load_config(tmp_path, env=env)
    assert config.max_retries == 0
    assert config.model == "sonnet"
    assert config.agent_binary == "/opt/claude"
    assert config.command_timeout == 2.5
    cmd = resolve_test_command(config, tmp_path)
    assert cmd.argv == ("python", "-m", "pytest", "-q", "a b")
    assert cmd.source == "TDD_TEST_COMMAND"


def test_empty_environment_value_counts_as_unset(tmp_path: Path) -> None:
    write_toml(tmp_path, 'model = "from-file"\n')
    assert load_config(tmp_path, env={"TDD_MODEL": ""}).model == "from-file"


def test_all_file_keys_are_accepted(tmp_path: Path) -> None:
    write_toml(
        tmp_path,
        """
test_command = ["npm", "test"]
test_shell = false
test_file_globs = ["spec/**"]
junit_xml = ["reports/*.xml"]
max_retries = 5
command_timeout = 30
agent_timeout = 60.5
max_turns = 10
model = "opus"
notes_ref = "refs/notes/mine"
agent_binary = "claude-dev"
branch_prefix = "tdd/"
""",
    )
    config = load_config(tmp_path, env={})
    assert config.test_command == ["npm", "test"]
    assert config.command_timeout == 30.0
    assert config.notes_ref == "refs/notes/mine"
    assert config.is_test_file("spec/a_spec.rb")
    assert not config.is_test_file("tests/test_a.py")  # the configured globs replace the defaults


# --------------------------------------------------------------------------- error messages


def test_unknown_key_suggests_the_close_one(tmp_path: Path) -> None:
    write_toml(tmp_path, "max_retires = 3\n")
    error = config_error(tmp_path)
    assert "tdd.toml: unknown key 'max_retires' (did you mean 'max_retries'?)" in error.message
    assert error.hint is not None and "max_retries" in error.hint


def test_unknown_key_without_a_close_match(tmp_path: Path) -> None:
    write_toml(tmp_path, "colour = 'blue'\n")
    error = config_error(tmp_path)
    assert "unknown key 'colour'" in error.message
    assert "did you mean" not in error.message


def test_hyphenated_key_suggests_the_underscore_spelling(tmp_path: Path) -> None:
    write_toml(tmp_path, "max-turns = 3\n")
    assert "did you mean 'max_turns'?" in config_error(tmp_path).message


@pytest.mark.parametrize(
    ("line", "expected"),
    [
        ('max_retries = "three"', "tdd.toml: 'max_retries' must be an integer >= 0, got 'three'"),
        ("max_retries = -1", "'max_retries' must be an integer >= 0, got -1"),
        ("max_retries = true", "'max_retries' must be an integer >= 0, got True"),
        ("max_turns = 0", "'max_turns' must be an integer >= 1, got 0"),
        ("command_timeout = 0", "'command_timeout' must be a number of seconds > 0, got 0"),
        ('agent_timeout = "long"', "'agent_timeout' must be a number of seconds > 0"),
        ('test_shell = "maybe"', "'test_shell' must be true or false, got 'maybe'"),
        ('test_file_globs = "tests/**"', "'test_file_globs' must be a list of glob strings"),
        ("junit_xml = [1]", "'junit_xml' must be a list of glob strings"),
        ('model = ""', "'model' must be a non-empty string, got ''"),
        (
            'notes_ref = "refs/heads/x"',
            "'notes_ref' must be a ref name starting with 'refs/notes/'",
        ),
        ('branch_prefix = "a b/"', "'branch_prefix' must be a branch name prefix"),
        ('agent_binary = ""', "'agent_binary' must be a non-empty string"),
        ("test_command = []", "'test_command' must be a non-empty command string"),
        ('test_command = "pytest \'x"', "(no closing quotation)"),
        ("test_command = 3", "'test_command' must be a non-empty command string or list"),
    ],
)
def test_bad_file_values_name_file_key_and_expectation(
    tmp_path: Path, line: str, expected: str
) -> None:
    write_toml(tmp_path, line + "\n")
    error = config_error(tmp_path)
    assert str(tmp_path / "tdd.toml") in error.message
    assert expected in error.message


def test_several_problems_are_all_reported(tmp_path: Path) -> None:
    write_toml(tmp_path, "max_retries = -1\nmax_turns = 0\n")
    message = config_error(tmp_path).message
    assert "'max_retries'" in message and "'max_turns'" in message


def test_invalid_toml_names_the_line(tmp_path: Path) -> None:
    write_toml(tmp_path, "max_retries = 3\nmodel = 'x'\nmax_turns = = 4\n")
    error = config_error(tmp_path)
    assert error.message.startswith(f"{tmp_path / 'tdd.toml'}: not valid TOML: line 3")


def test_a_bad_file_value_is_reported_even_when_overridden(tmp_path: Path) -> None:
    write_toml(tmp_path, 'max_retries = "three"\n')
    error = config_error(tmp_path, env={"TDD_MAX_RETRIES": "2"})
    assert "tdd.toml: 'max_retries'" in error.message


@pytest.mark.parametrize(
    ("var", "value", "expected"),
    [
        ("TDD_MAX_RETRIES", "three", "TDD_MAX_RETRIES: must be an integer >= 0, got 'three'"),
        ("TDD_MAX_RETRIES", "-2", "TDD_MAX_RETRIES: must be an integer >= 0, got '-2'"),
        ("TDD_COMMAND_TIMEOUT", "soon", "TDD_COMMAND_TIMEOUT: must be a number of seconds > 0"),
        ("TDD_TEST_COMMAND", "pytest 'x", "TDD_TEST_COMMAND: must be a non-empty command"),
    ],
)
def test_bad_environment_values_name_the_variable(
    tmp_path: Path, var: str, value: str, expected: str
) -> None:
    error = config_error(tmp_path, env={var: value})
    assert expected in error.message
    assert error.hint is not None and var in error.hint


def test_bad_flag_value_names_the_flag(tmp_path: Path) -> None:
    error = config_error(tmp_path, flags={"max_retries": -1})
    assert "--max-retries: must be an integer >= 0, got -1" in error.message


def test_unknown_flag_field_is_a_programming_error(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="unknown flag field"):
        load_config(tmp_path, env={}, flags={"max_retires": 1})


# --------------------------------------------------------------------------- project root


def test_project_root_defaults_to_cwd(tmp_path: Path) -> None:
    assert find_project_root(tmp_path, {}) == tmp_path
    assert find_project_root(tmp_path, {"TDD_PROJECT_ROOT": ""}) == tmp_path


def test_project_root_from_environment(tmp_path: Path) -> None:
    (tmp_path / "proj").mkdir()
    assert (
        find_project_root(Path("/"), {"TDD_PROJECT_ROOT": str(tmp_path / "proj")})
        == (tmp_path / "proj").resolve()
    )
    assert find_project_root(tmp_path, {"TDD_PROJECT_ROOT": "proj"}) == (tmp_path / "proj")


def test_project_root_must_exist(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        find_project_root(tmp_path, {"TDD_PROJECT_ROOT": str(tmp_path / "missing")})
    assert "TDD_PROJECT_ROOT" in info.value.message
    assert "missing" in info.value.message


# --------------------------------------------------------------------------- detection


def touch(root: Path, name: str, text: str = "") -> None:
    (root / name).write_text(text, encoding="utf-8")


POM_WITH_JUNIT = "<project><dependency><groupId>org.junit.jupiter</groupId></dependency></project>"
PACKAGE_WITH_TESTS = json.dumps({"scripts": {"test": "jest"}})
NPM_PLACEHOLDER = 'echo "Error: no test specified" && exit 1'
PACKAGE_PLACEHOLDER = json.dumps({"scripts": {"test": 'echo "Error: no test specified" && exit 1'}})


def test_maven_with_junit_wins_over_everything(tmp_path: Path) -> None:
    touch(tmp_path, "pom.xml", POM_WITH_JUNIT)
    touch(tmp_path, "build.gradle")
    touch(tmp_path, "package.json", PACKAGE_WITH_TESTS)
    touch(tmp_path, "pyproject.toml")
    cmd = detect_test_command(tmp_path)
    assert cmd is not None
    assert (cmd.argv, cmd.runner) == (("mvn", "test"), "maven")
    assert "target/surefire-reports/TEST-*.xml" in cmd.junit_globs
    assert cmd.source == "detected from pom.xml"


def test_pom_without_junit_falls_through(tmp_path: Path) -> None:
    touch(tmp_path, "pom.xml", "<project/>")
    touch(tmp_path, "setup.py")
    cmd = detect_test_command(tmp_path)
    assert cmd is not None and cmd.runner == "pytest"


@pytest.mark.parametrize("name", ["build.gradle", "build.gradle.kts"])
def test_gradle_beats_npm_and_python(tmp_path: Path, name: str) -> None:
    touch(tmp_path, name)
    touch(tmp_path, "package.json", PACKAGE_WITH_TESTS)
    touch(tmp_path, "pytest.ini")
    cmd = detect_test_command(tmp_path)
    assert cmd is not None
    assert (cmd.argv, cmd.runner, cmd.source) == (
        ("gradle", "test"),
        "gradle",
        f"detected from {name}",
    )
    assert "build/test-results/test/*.xml" in cmd.junit_globs


def test_gradle_wrapper_is_preferred(tmp_path: Path) -> None:
    touch(tmp_path, "build.gradle")
    touch(tmp_path, "gradlew")
    cmd = detect_test_command(tmp_path)
    assert cmd is not None and cmd.argv == ("./gradlew", "test")


def test_npm_with_a_test_script_beats_python(tmp_path: Path) -> None:
    touch(tmp_path, "package.json", PACKAGE_WITH_TESTS)
    touch(tmp_path, "pyproject.toml")
    cmd = detect_test_command(tmp_path)
    assert cmd is not None
    assert (cmd.argv, cmd.runner, cmd.junit_globs) == (("npm", "test"), "jest", ())


@pytest.mark.parametrize("package", [PACKAGE_PLACEHOLDER, "{}", '{"scripts": {"build": "tsc"}}'])
def test_npm_without_a_real_test_script_is_skipped(tmp_path: Path, package: str) -> None:
    touch(tmp_path, "package.json", package)
    assert detect_test_command(tmp_path) is None
    touch(tmp_path, "setup.cfg")
    cmd = detect_test_command(tmp_path)
    assert cmd is not None and cmd.runner == "pytest"


def test_invalid_package_json_is_an_error(tmp_path: Path) -> None:
    touch(tmp_path, "package.json", "{not json")
    with pytest.raises(ConfigError, match=r"package\.json: not valid JSON"):
        detect_test_command(tmp_path)


@pytest.mark.parametrize(
    "marker", ["pytest.ini", "pyproject.toml", "setup.py", "setup.cfg", "tox.ini"]
)
def test_python_markers_mean_pytest(tmp_path: Path, marker: str) -> None:
    touch(tmp_path, marker)
    cmd = detect_test_command(tmp_path)
    assert cmd == TestCommand(("pytest",), "pytest", (), False, f"detected from {marker}")


def test_nothing_to_detect_is_a_config_error_with_a_hint(tmp_path: Path) -> None:
    with pytest.raises(ConfigError) as info:
        resolve_test_command(load_config(tmp_path, env={}), tmp_path)
    assert info.value.message == f"no test command configured and none detected in {tmp_path}"
    assert info.value.hint == 'set test_command in tdd.toml, e.g. test_command = "pytest -q"'


def test_configured_command_wins_and_is_split_without_a_shell(tmp_path: Path) -> None:
    touch(tmp_path, "pom.xml", POM_WITH_JUNIT)
    path = write_toml(tmp_path, "test_command = \"uv run pytest -k 'a and b'\"\n")
    cmd = resolve_test_command(load_config(tmp_path, env={}), tmp_path)
    assert cmd == TestCommand(
        ("uv", "run", "pytest", "-k", "a and b"), "pytest", (), False, str(path)
    )


@pytest.mark.parametrize(("test_command", "runner"), [
    ("npm run test:vi", "vitest"), ("npm test", "jest"), ("pnpm run test:vi -- --bail", "vitest"),
    ("npm run lint", "npm")])
def test_a_configured_npm_run_reads_the_script_it_names(
        tmp_path: Path, test_command: str, runner: str) -> None:
    # css-what's shape: the test script runs one runner, the script the user named another
    touch(tmp_path, "package.json", json.dumps({
        "scripts": {"test": "jest", "test:vi": "vitest run", "lint": "eslint ."},
        "devDependencies": {"jest": "30", "vitest": "4"}}))
    write_toml(tmp_path, f"test_command = {json.dumps(test_command)}\n")
    assert resolve_test_command(load_config(tmp_path, env={}), tmp_path).runner == runner


def test_shell_is_an_explicit_opt_in(tmp_path: Path) -> None:
    write_toml(tmp_path, 'test_command = "make test && echo ok"\ntest_shell = true\n')
    cmd = resolve_test_command(load_config(tmp_path, env={}), tmp_path)
    assert cmd.argv == ("/bin/sh", "-c", "make test && echo ok")
    assert cmd.shell is True and cmd.runner == "custom"


def test_configured_junit_globs_go_with_a_custom_command(tmp_path: Path) -> None:
    write_toml(tmp_path, 'test_command = ["make", "test"]\njunit_xml = ["out/*.xml"]\n')
    cmd = resolve_test_command(load_config(tmp_path, env={}), tmp_path)
    assert (cmd.argv, cmd.runner, cmd.junit_globs) == (("make", "test"), "custom", ("out/*.xml",))


def test_configured_junit_globs_replace_detected_ones(tmp_path: Path) -> None:
    touch(tmp_path, "build.gradle")
    write_toml(tmp_path, 'junit_xml = ["app/build/test-results/test/*.xml"]\n')
    cmd = resolve_test_command(load_config(tmp_path, env={}), tmp_path)
    assert cmd.runner == "gradle"
    assert cmd.junit_globs == ("app/build/test-results/test/*.xml",)


@pytest.mark.parametrize(
    ("package", "argv", "runner"),
    [
        ({"scripts": {"test": "vitest run"}}, ("npm", "test"), "vitest"),
        ({"scripts": {"test": "tsc --noEmit && vitest run --coverage"}}, ("npm", "test"),
         "vitest"),
        ({"scripts": {"test": "NODE_ENV=test jest"}}, ("npm", "test"), "jest"),
        ({"scripts": {"test": "mocha"}}, ("npm", "test"), "mocha"),
        ({"scripts": {"test": "node --test test/"}}, ("npm", "test"), "node"),
        # a script that calls another script: the one runner among the devDependencies
        ({"scripts": {"test": "npm run unit"}, "devDependencies": {"jest": "30"}},
         ("npm", "test"), "jest"),
        ({"scripts": {"test": "node check.js"}}, ("npm", "test"), "npm"),
        # node --test anywhere, wrapped in a coverage tool, behind `npm run` (its reporter
        # comes through NODE_OPTIONS): @fastify/error 4.3.0's scripts (issue 35)
        ({"scripts": {"test": "npm run test:unit && npm run test:typescript",
                      "test:unit": "c8 --100 node --test", "test:typescript": "tstyche"}},
         ("npm", "test"), "node"),
        ({"scripts": {"test": "c8 node --test && tsd"}}, ("npm", "test"), "node"),
        # scripts that call each other in a circle: nothing rgr can read
        ({"scripts": {"test": "npm run a", "a": "npm run test"}}, ("npm", "test"), "npm"),
        # no test script: the runner among the devDependencies, run through npx
        ({"devDependencies": {"vitest": "3"}}, ("npx", "vitest", "run"), "vitest"),
        ({"scripts": {"test": NPM_PLACEHOLDER}, "devDependencies": {"jest": "30"}},
         ("npx", "jest"), "jest"),
    ],
)
def test_javascript_runner_is_read_from_package_json(
    tmp_path: Path, package: dict[str, object], argv: tuple[str, ...], runner: str
) -> None:
    touch(tmp_path, "package.json", json.dumps(package))
    cmd = detect_test_command(tmp_path)
    assert cmd is not None and (cmd.argv, cmd.runner) == (argv, runner)


@pytest.mark.parametrize(
    ("files", "argv", "runner", "source"),
    [
        ({"Cargo.toml": ""}, ("cargo", "test"), "cargo", "Cargo.toml"),
        ({"Cargo.toml": "", ".config/nextest.toml": ""}, ("cargo", "nextest", "run"),
         "nextest", ".config/nextest.toml"),
        ({"go.mod": "module x\n"}, ("go", "test", "./..."), "go", "go.mod"),
        ({"Gemfile": "gem 'rspec'\n"}, ("bundle", "exec", "rspec"), "rspec", "Gemfile"),
        ({".rspec": ""}, ("rspec",), "rspec", ".rspec"),
        ({"composer.json": '{"require-dev": {"phpunit/phpunit": "^11"}}'},
         ("vendor/bin/phpunit",), "phpunit", "composer.json"),
        ({"phpunit.xml.dist": ""}, ("vendor/bin/phpunit",), "phpunit", "phpunit.xml.dist"),
    ],
)
def test_other_ecosystems_are_detected_before_python(
    tmp_path: Path, files: dict[str, str], argv: tuple[str, ...], runner: str, source: str
) -> None:
    touch(tmp_path, "pyproject.toml")
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        touch(tmp_path, name, text)
    cmd = detect_test_command(tmp_path)
    assert cmd is not None
    assert (cmd.argv, cmd.runner, cmd.source) == (argv, runner, f"detected from {source}")


def test_a_configured_npm_test_reads_the_script(tmp_path: Path) -> None:
    touch(tmp_path, "package.json", json.dumps({"scripts": {"test": "vitest run"}}))
    write_toml(tmp_path, 'test_command = "npm test"\n')
    assert resolve_test_command(load_config(tmp_path, env={}), tmp_path).runner == "vitest"


def test_junit_xml_replaces_rgrs_own_reporter(tmp_path: Path) -> None:
    touch(tmp_path, "package.json", json.dumps({"scripts": {"test": "jest"}}))
    write_toml(tmp_path, 'junit_xml = ["reports/*.xml"]\n')
    cmd = resolve_test_command(load_config(tmp_path, env={}), tmp_path)
    assert (cmd.argv, cmd.runner, cmd.junit_globs) == (("npm", "test"), "custom",
                                                       ("reports/*.xml",))


def test_test_command_flag_beats_the_file(tmp_path: Path) -> None:
    write_toml(tmp_path, 'test_command = "pytest"\n')
    config = load_config(tmp_path, env={}, flags={"test_command": "npm test"})
    assert resolve_test_command(config, tmp_path).source == "--test-command"


@pytest.mark.parametrize(
    ("argv", "runner"),
    [
        (["pytest", "-q"], "pytest"),
        (["/usr/bin/python3", "-m", "pytest"], "pytest"),
        (["py.test"], "pytest"),
        ([".venv/bin/pytest-3"], "pytest"),
        (["python", "-m", "unittest"], "unittest"),
        (["mvn", "-q", "test"], "maven"),
        (["./mvnw", "test"], "maven"),
        (["./gradlew", "test"], "gradle"),
        (["yarn", "test"], "npm"),
        (["make", "test"], "custom"),
        (["tox", "-e", "py311-pytest"], "custom"),
        (["npx", "vitest", "run"], "vitest"),
        (["node_modules/.bin/jest", "--ci"], "jest"),
        (["npx", "mocha", "test/*.spec.js"], "mocha"),
        (["node", "--test"], "node"),
        (["node", "script.js"], "custom"),
        (["cargo", "test", "--workspace"], "cargo"),
        (["cargo", "nextest", "run"], "nextest"),
        (["go", "test", "./..."], "go"),
        (["go", "vet"], "custom"),
        (["bundle", "exec", "rspec"], "rspec"),
        (["vendor/bin/phpunit"], "phpunit"),
    ],
)
def test_runner_is_guessed_from_the_command(argv: list[str], runner: str) -> None:
    assert guess_runner(argv) == runner


# --------------------------------------------------------------------------- globs


@pytest.mark.parametrize(
    ("pattern", "path", "expected"),
    [
        ("tests/**", "tests/test_a.py", True),
        ("tests/**", "tests/unit/deep/test_a.py", True),
        ("tests/**", "tests", False),
        ("tests/**", "src/tests/test_a.py", False),
        ("**/tests/**", "src/pkg/tests/x.py", True),
        ("**/tests/**", "tests/x.py", True),
        ("**/test_*.py", "test_a.py", True),
        ("**/test_*.py", "a/b/c/test_a.py", True),
        ("**/test_*.py", "a/b/c/atest_a.py", False),
        ("**/test_*.py", "a/test_dir/x.py", False),
        ("*.py", "a.py", True),
        ("*.py", "src/a.py", False),  # anchored: * never crosses a slash
        ("src/**/test/*.java", "src/test/A.java", True),  # ** spans zero directories
        ("src/**/test/*.java", "src/main/x/test/A.java", True),
        ("src/**/test/*.java", "src/test/x/A.java", False),
        ("a?c.txt", "abc.txt", True),
        ("a?c.txt", "a/c.txt", False),
        ("**/*.test.[jt]s", "web/app.test.ts", True),
        ("**/*.test.[jt]s", "web/app.test.js", True),
        ("**/*.test.[jt]s", "web/app.test.cs", False),
        ("x[!a]y", "xby", True),
        ("x[!a]y", "xay", False),
        ("x[!a]y", "x/y", False),
        ("a[b", "a[b", True),  # an unclosed bracket is literal
        ("foo**bar", "fooXbar", True),
        ("foo**bar", "foo/bar", False),
        ("**", "anything/at/all.txt", True),
        ("a.b", "axb", False),  # regex characters are escaped
        ("tests/**", "./tests/a.py", True),
        ("tests/", "tests/a/b.py", True),
    ],
)
def test_glob_matcher(pattern: str, path: str, expected: bool) -> None:
    assert GlobSet([pattern]).matches(path) is expected


def test_empty_glob_set_matches_nothing() -> None:
    assert GlobSet([]).matches("tests/test_a.py") is False


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("tests/test_slug.py", True),
        ("tests/helpers/factory.py", True),
        ("test/unit.js", True),
        ("pkg/sub/test_x.py", True),
        ("pkg/x_test.py", True),
        ("conftest.py", True),
        ("cmd/server/main_test.go", True),
        ("web/src/app.test.ts", True),
        ("web/src/app.spec.js", True),
        ("web/src/__tests__/app.js", True),
        ("src/test/java/com/acme/SlugTest.java", True),
        ("spec/models/user_spec.rb", True),
        ("src/slug.py", False),
        ("pkg/testing.py", False),
        ("cmd/server/main.go", False),
        ("src/main/java/com/acme/Slug.java", False),
        ("README.md", False),
        ("tdd.toml", False),
    ],
)
def test_default_test_file_globs(path: str, expected: bool) -> None:
    assert Config().is_test_file(path) is expected
