"""Tests mirror the code (issue 43, item 6): each of rgr's modules has a test file of its
own, where the module is: ``rgr/a/b.py`` is tested in ``tests/a/test_b.py``, and a package
``rgr/a/b/`` (its ``__init__.py``) in ``tests/a/b/test_b.py``, beside its modules' tests.
The end-to-end suites (tests/e2e) and the container tests (tests/containers) are laid out
by scenario and count for no module. The modules that have no test file are listed here,
each with why; the list only shrinks: a new module comes with its test file, and a module
that gains one leaves the list."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import REPO_ROOT

#: rgr's modules without a test file of their own, each with the reason: where it is
#: tested instead (by feature, in files named for what they check), or why it has
#: nothing to test alone.
WITHOUT_TEST_FILE: dict[str, str] = {
    "rgr":
        "tested by feature in backends/test_zero_config, commands/test_history_table, "
        "ecosystems/python/test_unittest_runner (+5)",
    "rgr.__main__":
        "`python -m rgr`, calling rgr.launch.main: run by sandbox/test_setup, "
        "evaluate/test_report",
    "rgr.backends": "a package's docstring and imports: no code of its own",
    "rgr.backends.base":
        "tested by feature in backends/test_cli_process, backends/test_codex, "
        "backends/test_opencode (+15)",
    "rgr.backends.claude":
        "tested by feature in backends/test_structured_answers, backends/test_version_memo, "
        "e2e/test_claude_backend (+3)",
    "rgr.backends.claude_release":
        "tested by feature in backends/test_zero_config, deploy/test_fleet_recipe, "
        "deploy/test_install_script (+1)",
    "rgr.backends.codex_stream":
        "tested by feature in backends/test_codex, backends/test_structured_answers",
    "rgr.backends.gemini":
        "tested by feature in e2e/test_gemini_backend, sandbox/test_least_privilege",
    "rgr.backends.locate": "tested by feature in backends/test_zero_config",
    "rgr.backends.router":
        "tested by feature in backends/test_codex, backends/test_registry, "
        "commands/test_verify",
    "rgr.backends.strict_output":
        "tested by feature in backends/test_codex, backends/test_structured_answers",
    "rgr.base": "a package's docstring and imports: no code of its own",
    "rgr.base.backend_names":
        "tested by feature in backends/test_registry, e2e/test_gemini_backend, "
        "e2e/test_opencode_backend (+2)",
    "rgr.base.config_seen": "tested by feature in commands/test_history_table",
    "rgr.base.errors":
        "tested by feature in backends/test_cli_process, backends/test_codex, "
        "backends/test_registry (+21)",
    "rgr.base.failpoints":
        "tested by feature in e2e/test_daemon, e2e/test_kill_anywhere, store/test_recovery",
    "rgr.base.outcome": "tested by feature in base/test_render, commands/test_rendered_text",
    "rgr.base.processes":
        "tested by feature in backends/test_opencode, e2e/test_faults, "
        "e2e/test_gemini_backend (+3)",
    "rgr.base.slots": "tested by feature in daemon/test_queue",
    "rgr.base.terminal": "no test imports it: reached through the modules that use it",
    "rgr.base.ui": "no test imports it: reached through the modules that use it",
    "rgr.branches": "a package's docstring and imports: no code of its own",
    "rgr.branches.integrate": "no test imports it: reached through the modules that use it",
    "rgr.branches.landing": "tested by feature in tdd/test_examine",
    "rgr.branches.rollback": "no test imports it: reached through the modules that use it",
    "rgr.branches.sealed_gate": "tested by feature in check/test_flaky",
    "rgr.check": "a package's docstring and imports: no code of its own",
    "rgr.check.acceptance.interface":
        "tested by feature in check/acceptance/test_acceptance, ecosystems/ruby/test_ruby",
    "rgr.check.acceptance.placing":
        "tested by feature in check/acceptance/test_acceptance, ecosystems/ruby/test_ruby",
    "rgr.check.acceptance.verdict": "tested by feature in check/acceptance/test_acceptance",
    "rgr.check.cheats.rules": "no test imports it: reached through the modules that use it",
    "rgr.check.cheats.tokens": "no test imports it: reached through the modules that use it",
    "rgr.check.fakeit.ledger":
        "tested by feature in check/fakeit/test_facts, check/fakeit/test_fakeit, "
        "check/fakeit/test_token_flow",
    "rgr.check.fakeit.tables": "no test imports it: reached through the modules that use it",
    "rgr.check.fakeit.tokens": "tested by feature in ecosystems/ruby/test_ruby",
    "rgr.check.gate":
        "tested by feature in commands/test_rendered_text, mergefix/test_merge_fix",
    "rgr.check.guards":
        "tested by feature in bench/test_corpus_ranges, check/cheats/test_cheats, "
        "check/test_judged_by_content (+9)",
    "rgr.check.mergefix_checks": "tested by feature in mergefix/test_merge_fix",
    "rgr.check.mutation.arid": "tested by feature in check/mutation/test_mutation_noise",
    "rgr.check.mutation.boundary":
        "no test imports it: reached through the modules that use it",
    "rgr.check.mutation.gate":
        "tested by feature in check/mutation/test_kills, check/mutation/test_mutation_blame, "
        "ecosystems/javascript/test_direct (+4)",
    "rgr.check.mutation.rule":
        "tested by feature in check/mutation/test_mutation, "
        "ecosystems/python/test_equivalence",
    "rgr.check.mutation.score":
        "tested by feature in check/mutation/test_mutation, "
        "check/mutation/test_mutation_noise, ecosystems/python/test_equivalence",
    "rgr.check.mutation.verdicts":
        "tested by feature in check/mutation/test_mutation, "
        "check/mutation/test_mutation_blame, check/mutation/test_mutation_noise (+1)",
    "rgr.check.testlist": "no test imports it: reached through the modules that use it",
    "rgr.check.violation": "tested by feature in check/cheats/test_cheats, check/test_verify",
    "rgr.commands.common": "no test imports it: reached through the modules that use it",
    "rgr.commands.daemon": "no test imports it: reached through the modules that use it",
    "rgr.commands.demo": "tested by feature in backends/test_registry",
    "rgr.commands.eval": "no test imports it: reached through the modules that use it",
    "rgr.commands.fix_merge": "no test imports it: reached through the modules that use it",
    "rgr.commands.history":
        "tested by feature in store/history/test_cache, store/history/test_rows",
    "rgr.commands.land_check": "no test imports it: reached through the modules that use it",
    "rgr.commands.queue": "no test imports it: reached through the modules that use it",
    "rgr.commands.refactor":
        "tested by feature in commands/test_rendered_text, commands/test_serve",
    "rgr.commands.repair_notes": "tested by feature in commands/test_rendered_text",
    "rgr.commands.rollback": "no test imports it: reached through the modules that use it",
    "rgr.commands.show":
        "tested by feature in check/fakeit/test_fakeit_kernel, check/test_flaky, "
        "commands/test_rendered_text (+1)",
    "rgr.commands.status":
        "tested by feature in check/fakeit/test_fakeit_kernel, commands/test_rendered_text, "
        "loop/test_kernel (+1)",
    "rgr.crash": "no test imports it: reached through the modules that use it",
    "rgr.daemon": "a package's docstring and imports: no code of its own",
    "rgr.daemon.claims": "tested by feature in daemon/test_queue",
    "rgr.daemon.cron": "tested by feature in daemon/test_queue",
    "rgr.daemon.daemon": "tested by feature in daemon/test_queue",
    "rgr.daemon.hub":
        "tested by feature in backends/test_zero_config, daemon/test_land, daemon/test_queue "
        "(+1)",
    "rgr.daemon.identity": "tested by feature in daemon/test_queue",
    "rgr.daemon.jobs": "no test imports it: reached through the modules that use it",
    "rgr.daemon.remote": "tested by feature in daemon/test_queue, store/test_note_one_record",
    "rgr.daemon.view": "tested by feature in backends/test_zero_config, daemon/test_queue",
    "rgr.daemon.workcopy":
        "tested by feature in daemon/test_land, daemon/test_queue, e2e/test_serve_browser "
        "(+2)",
    "rgr.daemon.worker": "tested by feature in backends/test_zero_config, daemon/test_queue",
    "rgr.demo": "a package's docstring and imports: no code of its own",
    "rgr.demo.env": "tested by feature in e2e/test_demo",
    "rgr.demo.kata":
        "tested by feature in demo/test_demo_resume, e2e/test_claude_releases, "
        "e2e/test_real_projects (+5)",
    "rgr.ecosystems": "a package's docstring and imports: no code of its own",
    "rgr.ecosystems.base":
        "tested by feature in bench/test_referee_corpus_data, commands/test_rendered_text, "
        "ecosystems/javascript/test_direct (+5)",
    "rgr.ecosystems.declarations":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.fact":
        "tested by feature in check/fakeit/test_fakeit, ecosystems/ruby/test_ruby",
    "rgr.ecosystems.go": "a package's docstring and imports: no code of its own",
    "rgr.ecosystems.go.caches": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.go.cheats": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.go.interface":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.go.language": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.go.narrowing":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.go.runner": "tested by feature in check/test_red_compiled_packages",
    "rgr.ecosystems.go.syntax": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.javascript": "a package's docstring and imports: no code of its own",
    "rgr.ecosystems.javascript.bun":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.javascript.cheats":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.javascript.interface":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.javascript.language":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.javascript.modules":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.javascript.narrowing":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.javascript.reach": "tested by feature in ecosystems/test_test_scope",
    "rgr.ecosystems.javascript.syntax":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.junit": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.jvm": "a package's docstring and imports: no code of its own",
    "rgr.ecosystems.jvm.caches": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.jvm.cheats": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.jvm.language":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.jvm.narrowing":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.jvm.syntax": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.language": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.php": "a package's docstring and imports: no code of its own",
    "rgr.ecosystems.php.language":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.php.runner": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.python": "a package's docstring and imports: no code of its own",
    "rgr.ecosystems.python.cheats":
        "tested by feature in check/cheats/test_cheats, through rgr.check.cheats (its rules' "
        "home)",
    "rgr.ecosystems.python.interface":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.python.language":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.python.lines":
        "tested by feature in check/mutation/test_mutation, "
        "ecosystems/python/test_unittest_reporter",
    "rgr.ecosystems.python.modules": "tested by feature in refactor/test_refactor",
    "rgr.ecosystems.python.probe":
        "tested by feature in check/mutation/test_mutation, "
        "check/mutation/test_mutation_blame",
    "rgr.ecosystems.python.pytest_lines":
        "tested by feature in ecosystems/python/test_unittest_reporter",
    "rgr.ecosystems.python.pytest_own_outcomes":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.python.pytest_runner": "tested by feature in check/test_red_real_suites",
    "rgr.ecosystems.python.special_cases":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.python.virtualenvs":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.registry":
        "tested by feature in base/test_config, check/fakeit/test_blame, "
        "check/fakeit/test_fakeit_kernel (+26)",
    "rgr.ecosystems.ruby.blocks": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.ruby.cheats": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.ruby.defaults":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.ruby.failure_kinds":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.ruby.interface":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.ruby.language":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.ruby.minitest":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.ruby.runner": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.ruby.statements":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.rust": "a package's docstring and imports: no code of its own",
    "rgr.ecosystems.rust.cargo_config": "tested by feature in sandbox/test_user_config",
    "rgr.ecosystems.rust.cargo_workspace":
        "tested by feature in check/test_red_compiled_packages",
    "rgr.ecosystems.rust.cheats": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.rust.language":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.rust.narrowing":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.rust.runner": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.rust.syntax": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.rust.test_modules":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.rust.values": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.scope": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.special_case":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.tokens": "tested by feature in check/mutation/test_mutation_styles",
    "rgr.evaluate": "a package's docstring and imports: no code of its own",
    "rgr.evaluate.clone": "no test imports it: reached through the modules that use it",
    "rgr.evaluate.measure": "no test imports it: reached through the modules that use it",
    "rgr.evaluate.plot": "tested by feature in e2e/test_eval, evaluate/test_report",
    "rgr.evaluate.results": "tested by feature in commands/test_serve, evaluate/test_report",
    "rgr.evaluate.rgr_mode": "no test imports it: reached through the modules that use it",
    "rgr.evaluate.runner": "no test imports it: reached through the modules that use it",
    "rgr.evaluate.solo": "no test imports it: reached through the modules that use it",
    "rgr.evaluate.stats": "tested by feature in evaluate/test_report",
    "rgr.evaluate.vault": "tested by feature in evaluate/test_tasks",
    "rgr.fake_model.responses":
        "tested by feature in backends/test_codex, e2e/test_codex_backend, "
        "e2e/test_codex_loop (+1)",
    "rgr.fake_model.script": "no test imports it: reached through the modules that use it",
    "rgr.fake_model.server":
        "tested by feature in e2e/test_codex_loop, e2e/test_tdd_loop, "
        "fake_model/test_fake_model",
    "rgr.help_text": "tested by feature in test_startup",
    "rgr.history_quick": "tested by feature in commands/test_history_table",
    "rgr.launch": "tested by feature in test_startup",
    "rgr.loop": "a package's docstring and imports: no code of its own",
    "rgr.loop.outputs":
        "tested by feature in backends/test_codex, backends/test_structured_answers, "
        "loop/test_rough_edges",
    "rgr.loop.prompting": "tested by feature in check/fakeit/test_fakeit, check/test_impact",
    "rgr.loop.retry": "tested by feature in loop/test_kernel",
    "rgr.loop.sessions": "no test imports it: reached through the modules that use it",
    "rgr.loop.starting": "tested by feature in commands/test_serve, loop/test_rough_edges",
    "rgr.loop.summaries": "no test imports it: reached through the modules that use it",
    "rgr.mergefix": "a package's docstring and imports: no code of its own",
    "rgr.mergefix.engine": "tested by feature in loop/test_kernel",
    "rgr.observe": "a package's docstring and imports: no code of its own",
    "rgr.observe.invocation": "no test imports it: reached through the modules that use it",
    "rgr.observe.report_text":
        "tested by feature in check/fakeit/test_fakeit_kernel, observe/test_report, "
        "tdd/test_examine",
    "rgr.refactor.api": "tested by feature in refactor/test_refactor",
    "rgr.refactor.checks":
        "tested by feature in check/cheats/test_cheats, refactor/test_refactor, "
        "refactor/test_rename",
    "rgr.refactor.engine": "tested by feature in loop/test_kernel, refactor/test_refactor",
    "rgr.refactor.index": "tested by feature in refactor/test_refactor, refactor/test_rename",
    "rgr.refactor.plan":
        "tested by feature in backends/test_structured_answers, check/cheats/test_cheats, "
        "commands/test_rendered_text (+2)",
    "rgr.sandbox.bridge": "tested by feature in sandbox/test_gateway, sandbox/test_jail",
    "rgr.sandbox.explain": "no test imports it: reached through the modules that use it",
    "rgr.sandbox.policy":
        "tested by feature in ecosystems/python/test_equivalence, "
        "ecosystems/python/test_unittest_runner, ecosystems/test_runners (+4)",
    "rgr.sandbox.read_only": "tested by feature in sandbox/test_writable_copy",
    "rgr.sandbox.relay": "no test imports it: reached through the modules that use it",
    "rgr.sandbox.sealer":
        "tested by feature in check/fakeit/test_blame, check/fakeit/test_fakeit_kernel, "
        "check/test_flaky (+9)",
    "rgr.sandbox.secrets": "no test imports it: reached through the modules that use it",
    "rgr.store": "a package's docstring and imports: no code of its own",
    "rgr.store.acceptance_store":
        "tested by feature in check/acceptance/test_acceptance, e2e/test_examiner, "
        "sandbox/test_least_privilege (+1)",
    "rgr.store.acceptance_text": "no test imports it: reached through the modules that use it",
    "rgr.store.agents":
        "tested by feature in backends/test_registry, backends/test_structured_answers, "
        "e2e/test_tdd_loop",
    "rgr.store.debt_text": "no test imports it: reached through the modules that use it",
    "rgr.store.git":
        "tested by feature in check/acceptance/test_acceptance, check/fakeit/test_blame, "
        "check/fakeit/test_fakeit (+5)",
    "rgr.store.gitcli":
        "tested by feature in backends/test_zero_config, daemon/test_land, daemon/test_queue "
        "(+3)",
    "rgr.store.handoff_state":
        "tested by feature in store/test_handoff_read, store/test_note_json, "
        "store/test_note_one_record",
    "rgr.store.history": "tested by feature in store/history/test_cache",
    "rgr.store.history.newest": "no test imports it: reached through the modules that use it",
    "rgr.store.inflight":
        "tested by feature in loop/test_kernel, store/test_note_updates, store/test_recovery",
    "rgr.store.locks": "tested by feature in store/test_recovery",
    "rgr.store.merging": "tested by feature in loop/test_kernel, mergefix/test_merge_fix",
    "rgr.store.note_checks": "tested by feature in store/test_note_checks_source",
    "rgr.store.notes_log": "no test imports it: reached through the modules that use it",
    "rgr.store.objects": "tested by feature in test_architecture",
    "rgr.store.workspace":
        "tested by feature in check/fakeit/test_blame, check/fakeit/test_fakeit, "
        "check/fakeit/test_fakeit_kernel (+14)",
    "rgr.tdd": "a package's docstring and imports: no code of its own",
    "rgr.web": "a package's docstring and imports: no code of its own",
    "rgr.web.actions": "no test imports it: reached through the modules that use it",
    "rgr.web.app": "tested by feature in evaluate/test_report",
    "rgr.web.board": "no test imports it: reached through the modules that use it",
    "rgr.web.evals": "tested by feature in evaluate/test_report",
    "rgr.web.history": "no test imports it: reached through the modules that use it",
    "rgr.web.local_runs": "no test imports it: reached through the modules that use it",
    "rgr.web.plots": "no test imports it: reached through the modules that use it",
    "rgr.web.runs": "no test imports it: reached through the modules that use it",
    "rgr.web.security": "tested by feature in commands/test_serve",
}


def _modules(package: Path) -> dict[str, Path]:
    """Every module of ``package`` by its dotted name (a package by its own)."""
    found = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(package.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def mirror_of(module: str, path: Path) -> str:
    """Where the test file of ``module`` (found at ``path``) is, under tests/: rgr.a.b ->
    a/test_b.py, the package rgr.a.b (its __init__.py) -> a/b/test_b.py, rgr itself ->
    test_rgr.py."""
    parts = module.split(".")[1:]
    folder = parts if path.name == "__init__.py" else parts[:-1]
    return "/".join([*folder, f"test_{module.rpartition('.')[2]}.py"])


def _test_files(tests: Path) -> set[str]:
    """Each test file's path under ``tests`` (the packages' JavaScript trees left out)."""
    return {path.relative_to(tests).as_posix() for path in tests.rglob("test_*.py")
            if "node_modules" not in path.parts}


def _without_test_file(modules: dict[str, Path], test_files: set[str]) -> set[str]:
    """The modules whose test file (``mirror_of``) is not there."""
    return {name for name, path in modules.items()
            if mirror_of(name, path) not in test_files}


def _unexplained_and_stale(modules: dict[str, Path], test_files: set[str],
                           listed: dict[str, str]) -> tuple[list[str], list[str]]:
    """(modules without a test file that the list does not give a reason for, listed
    modules that have one now or are gone)."""
    without = _without_test_file(modules, test_files)
    return sorted(without - set(listed)), sorted(set(listed) - without)


def test_every_module_has_its_test_file_or_a_reason() -> None:
    unexplained, _ = _unexplained_and_stale(_modules(REPO_ROOT / "rgr"),
                                            _test_files(REPO_ROOT / "tests"), WITHOUT_TEST_FILE)
    assert unexplained == [], "write tests/<package>/test_<module>.py for each"


def test_the_list_only_shrinks() -> None:
    _, stale = _unexplained_and_stale(_modules(REPO_ROOT / "rgr"),
                                      _test_files(REPO_ROOT / "tests"), WITHOUT_TEST_FILE)
    assert stale == [], "these have a test file now (or are gone): take them off the list"


def test_each_reason_says_something() -> None:
    assert [name for name, reason in WITHOUT_TEST_FILE.items() if len(reason.split()) < 3] == []


def test_the_check_sees_a_module_without_its_test_file(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    for name in ("__init__.py", "alpha.py", "beta.py", "gamma.py", "sub/__init__.py",
                 "sub/gamma.py"):
        (package / name).write_text("")
    tests = tmp_path / "tests"
    (tests / "sub").mkdir(parents=True)
    for name in ("test_alpha.py", "sub/test_gamma.py", "sub/test_sub.py", "sub/test_beta.py"):
        (tests / name).write_text("")
    modules, files = _modules(package), _test_files(tests)
    # pkg.beta's test file is in the wrong folder, and only pkg.sub.gamma's is pkg.gamma's name
    assert _without_test_file(modules, files) == {"pkg", "pkg.beta", "pkg.gamma"}
    assert _unexplained_and_stale(modules, files, {"pkg": "why", "pkg.alpha": "why",
                                                   "pkg.gamma": "why"}) == (
        ["pkg.beta"], ["pkg.alpha"])


def test_a_modules_test_file_is_where_the_module_is() -> None:
    rgr = REPO_ROOT / "rgr"
    assert mirror_of("rgr.check.fakeit.facts", rgr / "check/fakeit/facts.py") == (
        "check/fakeit/test_facts.py")
    assert mirror_of("rgr.check.fakeit", rgr / "check/fakeit/__init__.py") == (
        "check/fakeit/test_fakeit.py")
    assert mirror_of("rgr.cli", rgr / "cli.py") == "test_cli.py"
    assert mirror_of("rgr", rgr / "__init__.py") == "test_rgr.py"
