"""Every ecosystem rgr knows, once, in the order their files are looked for: the one
list that detection, the runner adapters, the guards, the mutator and the sandbox read.

Adding a runner is a module under rgr/ecosystems/ that defines ``ECOSYSTEM`` (the
protocol in rgr.ecosystems.base) and one line here.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

from rgr.base.config import Config, TestCommand
from rgr.base.errors import ConfigError
from rgr.ecosystems.base import (
    ContentJudge,
    Diagnosis,
    Ecosystem,
    MutationSyntax,
    Runner,
    ToolHome,
)
from rgr.ecosystems.go import language as go_language
from rgr.ecosystems.go import narrowing as go_narrowing
from rgr.ecosystems.go import runner as go
from rgr.ecosystems.javascript import bun
from rgr.ecosystems.javascript import language as script_language
from rgr.ecosystems.javascript import narrowing as script_narrowing
from rgr.ecosystems.javascript import runner as javascript
from rgr.ecosystems.javascript import workspace as js_workspace
from rgr.ecosystems.junit import CustomCommand, JUnitGlobs
from rgr.ecosystems.jvm import language as jvm_language
from rgr.ecosystems.jvm import narrowing as jvm_narrowing
from rgr.ecosystems.jvm import runner as jvm
from rgr.ecosystems.language import (
    AcceptanceName,
    CheatIdioms,
    ExaminerInterface,
    FakeItTree,
    Language,
    TreeMutation,
)
from rgr.ecosystems.php import language as php_language
from rgr.ecosystems.php import runner as php
from rgr.ecosystems.python import language as python_language
from rgr.ecosystems.python import pytest_runner as python
from rgr.ecosystems.python import unittest_runner as python_unittest
from rgr.ecosystems.ruby import language as ruby_language
from rgr.ecosystems.ruby import runner as ruby
from rgr.ecosystems.rust import language as rust_language
from rgr.ecosystems.rust import narrowing as rust_narrowing
from rgr.ecosystems.rust import runner as rust
from rgr.ecosystems.scope import Scope
from rgr.ecosystems.traced import LineTracer

#: The first whose files are found wins: a Java build with a package.json for its web
#: assets is a Java project; Python's markers (pyproject.toml ...) come last, as any
#: project may carry one (unittest first: it claims only a project that names no pytest).
ECOSYSTEMS: tuple[Ecosystem, ...] = (
    jvm.ECOSYSTEM,
    bun.ECOSYSTEM,
    js_workspace.ECOSYSTEM,
    javascript.ECOSYSTEM,
    rust.ECOSYSTEM,
    go.ECOSYSTEM,
    ruby.ECOSYSTEM,
    php.ECOSYSTEM,
    python_unittest.ECOSYSTEM,
    python.ECOSYSTEM,
)

#: Every language rgr knows apart from its runners: what the language-neutral checks
#: ask of it (rgr.ecosystems.language).
LANGUAGES: tuple[Language, ...] = (
    python_language.LANGUAGE,
    go_language.LANGUAGE,
    ruby_language.LANGUAGE,
    script_language.LANGUAGE,
    jvm_language.LANGUAGE,
    php_language.LANGUAGE,
    rust_language.LANGUAGE,
)

#: How each runner that can narrows the tests a mutant of one file faces
#: (rgr.ecosystems.test_scope): its scope, or None when the command or file is not its.
NARROWINGS: tuple[Callable[[TestCommand, Path, str], Scope | None], ...] = (
    go_narrowing.scope,
    jvm_narrowing.scope,
    rust_narrowing.scope,
    script_narrowing.scope,
)

_JUNIT = JUnitGlobs()

#: Every runner adapter by name. ``custom`` (any other command) and ``junit`` are read
#: from the ``junit_xml`` globs when there are some.
RUNNERS: Mapping[str, Runner] = {
    runner.name: runner
    for runner in (*(r for eco in ECOSYSTEMS for r in eco.runners), _JUNIT, CustomCommand())
}


def runner_for(name: str) -> Runner:
    """The adapter for ``name``; an unknown name (a newer note, say) reads JUnit globs."""
    return RUNNERS.get(name, _JUNIT)


def guess_runner(argv: Iterable[str]) -> str:
    """Which runner a command uses, from its words (``uv run pytest`` is pytest,
    ``npx vitest run`` Vitest, ``node --test`` node's runner); a launcher that runs a
    script rgr cannot see into (``npm test``) only when no runner is named."""
    words = list(argv)
    names = [Path(word).name.removesuffix(".exe") for word in words]
    for eco in ECOSYSTEMS:
        if (runner := eco.runner_named(names, words)) is not None:
            return runner
    for eco in ECOSYSTEMS:
        if (runner := eco.launcher_named(names)) is not None:
            return runner
    return "custom"


def detect_test_command(root: Path) -> TestCommand | None:
    """The test command the project's files say: the first ecosystem that finds its
    files wins."""
    for eco in ECOSYSTEMS:
        found = eco.detect(root, guess_runner)
        if found is not None:
            return found
    return None


def resolve_test_command(config: Config, root: Path) -> TestCommand:
    """The configured test command, else the detected one, else a ConfigError."""
    if config.test_command is not None:
        return configured_command(config, root)
    detected = detect_test_command(root)
    if detected is None:
        raise ConfigError(
            f"no test command configured and none detected in {root}",
            hint='set test_command in tdd.toml, e.g. test_command = "pytest -q"',
        )
    if config.junit_xml:
        return TestCommand(detected.argv, _junit_override(detected.runner),
                           tuple(config.junit_xml), False, detected.source)
    return detected


def _junit_override(runner: str) -> str:
    """With ``junit_xml`` set, rgr reads those files instead of adding its own reporter,
    but for a runner that reads its own XML anyway."""
    keeps = any(runner in eco.reads_junit_xml_itself for eco in ECOSYSTEMS)
    return runner if keeps else "custom"


def configured_command(config: Config, root: Path | None = None) -> TestCommand:
    """``test_command`` from the config, its runner guessed from its words."""
    raw = config.test_command
    assert raw is not None
    words = shlex.split(raw) if isinstance(raw, str) else list(raw)
    if config.test_shell:
        script = raw if isinstance(raw, str) else shlex.join(raw)
        argv: tuple[str, ...] = ("/bin/sh", "-c", script)
    else:
        argv = tuple(words)
    runner = guess_runner(words)
    if root is not None:
        for eco in ECOSYSTEMS:
            runner = eco.configured_runner(runner, words, root, guess_runner)
    if config.junit_xml:
        runner = _junit_override(runner)
    return TestCommand(argv=argv, runner=runner, junit_globs=tuple(config.junit_xml),
                       shell=config.test_shell, source=config.source_of("test_command"),
                       setting=config.setting("test_command"))


def loads_file_by_file(runner: str) -> bool:
    """Whether ``runner`` loads each test file on its own (rgr.check.guards)."""
    return any(runner in eco.loads_file_by_file for eco in ECOSYSTEMS)


def test_config_globs() -> tuple[str, ...]:
    """Every ecosystem's files that decide how its tests run, once each."""
    return tuple(dict.fromkeys(g for eco in ECOSYSTEMS for g in eco.test_config_globs))


def content_judges() -> tuple[ContentJudge, ...]:
    """Every ecosystem's files judged by content, once each (rgr.check.guards): for any
    project, as every ecosystem's ``test_config_globs`` are."""
    return tuple(dict.fromkeys(j for eco in ECOSYSTEMS for j in eco.judged_by_content))


def content_judge(path: str) -> ContentJudge | None:
    """The judge of ``path`` when it is a file judged by content, or None."""
    return next((judge for judge in content_judges() if judge.judges(path)), None)


def tool_homes() -> tuple[ToolHome, ...]:
    return tuple(home for eco in ECOSYSTEMS for home in eco.tool_homes)


def mutation_syntax() -> tuple[MutationSyntax, ...]:
    return tuple(syntax for eco in ECOSYSTEMS for syntax in eco.mutation_syntax)


def diagnose(output: str, shown_env: Mapping[str, str]) -> Diagnosis | None:
    """The first ecosystem's own explanation of a sandboxed command's failure to start."""
    for eco in ECOSYSTEMS:
        found = eco.diagnose(output, shown_env)
        if found is not None:
            return found
    return None


def settle(cmd: TestCommand, root: Path) -> TestCommand:
    """``cmd`` made concrete for the checkout ``root`` by the ecosystems (a package that
    mixes runners: each test file there by its own runner)."""
    for eco in ECOSYSTEMS:
        cmd = eco.settle(cmd, root)
    return cmd


def without_hooks(cmd: TestCommand, root: Path) -> TestCommand | None:
    """``cmd`` without its launcher's hooks in the checkout ``root``, the first
    ecosystem's that leaves any out (rgr.check.mutation.gate), or None. Every ecosystem is
    asked, whatever ``cmd``'s runner: ``npm test`` launches any runner."""
    return next((found for eco in ECOSYSTEMS
                 if (found := eco.without_hooks(cmd, root)) is not None), None)


def runner_variables(runner: str) -> tuple[str, ...]:
    """The user's variables a sealed run of ``runner`` keeps: its ecosystem's."""
    for eco in ECOSYSTEMS:
        if any(adapter.name == runner for adapter in eco.runners):
            return eco.runner_variables
    return ()


def language_of(path: str) -> Language | None:
    """The language ``path`` is written in, or None."""
    return next((language for language in LANGUAGES if language.writes(path)), None)


def interface_reader(path: str) -> ExaminerInterface | None:
    """The examiner's interface reader of the language ``path`` is written in, or None
    (Python's interface is read by its AST in rgr.check.acceptance.interface; any other
    language's is its test files' import lines)."""
    language = language_of(path)
    return None if language is None else language.interface


def cheat_idioms(path: str) -> CheatIdioms | None:
    """The cheat idioms of the language ``path`` is written in, where rgr reads them on
    its tokens (rgr.check.cheats.tokens), or None."""
    return next((language.cheats for language in LANGUAGES
                 if language.cheats is not None and language.cheats.reads(path)), None)


def fakeit_tree(path: str) -> FakeItTree | None:
    """Fake-it's reader of the language ``path`` is written in, where rgr reads it by
    its syntax tree (rgr.check.fakeit), or None: read on its tokens, if at all."""
    language = language_of(path)
    return None if language is None else language.fakeit_tree


def acceptance_names() -> tuple[AcceptanceName, ...]:
    """How each language names its test files, in the languages' order."""
    return tuple(name for language in LANGUAGES for name in language.acceptance_names)


def ids_name_no_file(path: str) -> bool:
    """Whether the runners of ``path``'s language name no file in their test ids."""
    language = language_of(path)
    return language is not None and language.ids_name_no_file


def tree_mutation(path: str) -> TreeMutation | None:
    """How the mutation gate mutates ``path`` by its language's own syntax tree
    (``Language.tree_mutation``, its traced path), or None: on its tokens, if at all."""
    language = language_of(path)
    return None if language is None else language.tree_mutation


def traced(runner: str) -> bool:
    """Whether rgr's line tracer runs under ``runner`` (rgr.check.mutation.gate)."""
    return any(runner in eco.traced_runners for eco in ECOSYSTEMS)


def line_tracer(runner: str) -> LineTracer | None:
    """rgr's line tracer that ``runner`` runs under (rgr.tdd.examine), or None: the
    ecosystem's whose traced runners name it."""
    return next((eco.line_tracer for eco in ECOSYSTEMS if runner in eco.traced_runners),
                None)


def select_tests(cmd: TestCommand, tests: Iterable[str]) -> TestCommand:
    """``cmd`` limited to ``tests`` where its ecosystem knows how; otherwise the whole
    command, which is slower but as honest."""
    chosen = tuple(tests)
    if not chosen:
        return cmd
    for eco in ECOSYSTEMS:
        if any(runner.name == cmd.runner for runner in eco.runners):
            return eco.select_tests(cmd, chosen) or cmd
    return cmd


def alternatives(cmd: TestCommand, root: Path
                 ) -> tuple[tuple[TestCommand, ...], str] | None:
    """Commands to try where ``cmd`` read no per-test result: those of the ecosystem
    whose runner it is (rgr.loop.fix_trials), with where it looked for them; None when
    it proposes none."""
    for eco in ECOSYSTEMS:
        if any(runner.name == cmd.runner for runner in eco.runners):
            found = eco.alternatives(cmd, root, guess_runner)
            return None if found is None else (found, eco.alternatives_searched)
    return None


def ecosystems_used(root: Path, runner: str | None) -> tuple[Ecosystem, ...]:
    """The ecosystems ``root`` uses: each whose files are found there (not only the
    first: a Python project may carry a package.json), and the one whose runner
    ``runner`` is. Only their toolchain homes are shown to the sandbox."""
    used = []
    for eco in ECOSYSTEMS:
        owns = runner is not None and any(r.name == runner for r in eco.runners)
        try:
            found = eco.detect(root, guess_runner) is not None
        except ConfigError:  # a package.json that is not JSON still says JavaScript
            found = True
        if owns or found:
            used.append(eco)
    return tuple(used)


def short_name(eco: Ecosystem) -> str:
    """How a message names an ecosystem: its name without the runners in brackets."""
    return eco.name.split(" (")[0]
