"""Tests mirror the code (issue 43, item 6): each of rgr's modules has a test file of its
own, named ``test_<module>.py`` (``tests/<package>/test_<module>.py`` once the tests are
laid out like the package; today most sit flat in ``tests/``, named for a feature). The
modules that have none are listed here, each with why; the list only shrinks: a new
module comes with its test file, and a module that gains one leaves the list."""

from __future__ import annotations

from pathlib import Path

from tests.conftest import REPO_ROOT

#: rgr's modules without a test file of their own, each with the reason: where it is
#: tested instead (by feature, in files named for what they check), or why it has
#: nothing to test alone.
WITHOUT_TEST_FILE: dict[str, str] = {
    "rgr": "tested by feature in test_event_codec, test_history_table, test_least_privilege (+5)",
    "rgr.__main__": "`python -m rgr`, calling rgr.launch.main: run by test_setup, test_eval_report",
    "rgr.backends": "a package's docstring and imports: no code of its own",
    "rgr.backends.base":
        "tested by feature in test_acceptance_kernel, test_claude_backend, test_codex_backend "
        "(+11)",
    "rgr.backends.claude":
        "tested by feature in test_claude_backend, test_least_privilege, test_rough_edges (+2)",
    "rgr.backends.claude_release":
        "tested by feature in test_claude_releases, test_fleet_recipe, test_install_script (+1)",
    "rgr.backends.codex":
        "tested by feature in test_codex_backend, test_codex_parts, test_least_privilege (+2)",
    "rgr.backends.codex_stream": "tested by feature in test_codex_parts, test_structured_answers",
    "rgr.backends.gemini": "tested by feature in test_gemini_backend, test_least_privilege",
    "rgr.backends.locate": "tested by feature in test_zero_config",
    "rgr.backends.registry": "tested by feature in test_backend_registry",
    "rgr.backends.router":
        "tested by feature in test_backend_registry, test_codex_parts, test_verify_baseline",
    "rgr.backends.strict_output": "tested by feature in test_codex_parts, test_structured_answers",
    "rgr.base": "a package's docstring and imports: no code of its own",
    "rgr.base.backend_names":
        "tested by feature in test_architecture, test_backend_registry, test_docs (+1)",
    "rgr.base.config_seen": "tested by feature in test_history_table",
    "rgr.base.errors":
        "tested by feature in test_acceptance_kernel, test_acceptance_parts, test_backend_registry "
        "(+18)",
    "rgr.base.failpoints": "tested by feature in test_daemon, test_kill_anywhere, test_recovery",
    "rgr.base.outcome": "tested by feature in test_rendered_text",
    "rgr.base.processes":
        "tested by feature in test_faults, test_gemini_backend, test_kill_anywhere (+1)",
    "rgr.base.slots": "tested by feature in test_daemon_queue",
    "rgr.base.terminal": "no test imports it: reached through the modules that use it",
    "rgr.base.ui": "no test imports it: reached through the modules that use it",
    "rgr.branches": "a package's docstring and imports: no code of its own",
    "rgr.branches.integrate": "no test imports it: reached through the modules that use it",
    "rgr.branches.landing": "tested by feature in test_acceptance_kernel",
    "rgr.branches.rollback": "no test imports it: reached through the modules that use it",
    "rgr.branches.sealed_gate": "tested by feature in test_flaky_rerun",
    "rgr.check": "a package's docstring and imports: no code of its own",
    "rgr.check.acceptance": "a package's docstring and imports: no code of its own",
    "rgr.check.acceptance.interface":
        "tested by feature in test_acceptance_parts, test_ruby_language",
    "rgr.check.acceptance.placing":
        "tested by feature in test_acceptance_parts, test_ruby_language",
    "rgr.check.acceptance.verdict": "tested by feature in test_acceptance_parts",
    "rgr.check.cheats": "tested by feature in test_cheat_idioms, test_ruby_language",
    "rgr.check.cheats.rules": "no test imports it: reached through the modules that use it",
    "rgr.check.cheats.tokens": "no test imports it: reached through the modules that use it",
    "rgr.check.conftest_rules": "tested by feature in test_judged_by_content",
    "rgr.check.fakeit.cases": "no test imports it: reached through the modules that use it",
    "rgr.check.fakeit.fact": "no test imports it: reached through the modules that use it",
    "rgr.check.fakeit.facts":
        "tested by feature in test_fakeit, test_fakeit_dataflow, test_fakeit_token_flow (+1)",
    "rgr.check.fakeit.ledger":
        "tested by feature in test_fakeit, test_fakeit_dataflow, test_fakeit_token_flow",
    "rgr.check.fakeit.python": "no test imports it: reached through the modules that use it",
    "rgr.check.fakeit.tables": "no test imports it: reached through the modules that use it",
    "rgr.check.fakeit.token_flow": "no test imports it: reached through the modules that use it",
    "rgr.check.fakeit.tokens": "no test imports it: reached through the modules that use it",
    "rgr.check.flaky": "no test imports it: reached through the modules that use it",
    "rgr.check.gate": "tested by feature in test_merge_fix, test_rendered_text",
    "rgr.check.guards":
        "tested by feature in test_cheat_idioms, test_corpus_ranges, test_edit_guard (+10)",
    "rgr.check.ignore_rules": "tested by feature in test_judged_by_content",
    "rgr.check.manifest_keys": "tested by feature in test_judged_by_content",
    "rgr.check.mergefix_checks": "tested by feature in test_merge_fix",
    "rgr.check.mutation.arid": "tested by feature in test_mutation_noise",
    "rgr.check.mutation.boundary": "no test imports it: reached through the modules that use it",
    "rgr.check.mutation.equivalence": "tested by feature in test_mutation_equivalence",
    "rgr.check.mutation.gate":
        "tested by feature in test_cargo_targets, test_js_direct, test_jvm_direct (+3)",
    "rgr.check.mutation.kills": "tested by feature in test_mutation_kills",
    "rgr.check.mutation.lines":
        "tested by feature in test_impact, test_mutation, test_mutation_unittest",
    "rgr.check.mutation.mutants":
        "tested by feature in test_mutation, test_mutation_equivalence, test_mutation_java (+5)",
    "rgr.check.mutation.pytest_lines": "tested by feature in test_mutation_unittest",
    "rgr.check.mutation.python_probe": "tested by feature in test_mutation, test_mutation_blame",
    "rgr.check.mutation.rule": "tested by feature in test_mutation, test_mutation_equivalence",
    "rgr.check.mutation.score":
        "tested by feature in test_mutation, test_mutation_equivalence, test_mutation_noise",
    "rgr.check.mutation.textual":
        "tested by feature in test_mutation_java, test_mutation_noise, test_mutation_probe_exit "
        "(+2)",
    "rgr.check.mutation.verdicts":
        "tested by feature in test_mutation, test_mutation_blame, test_mutation_equivalence (+1)",
    "rgr.check.testlist": "no test imports it: reached through the modules that use it",
    "rgr.check.violation": "tested by feature in test_cheat_idioms, test_verify",
    "rgr.cli": "tested by feature in test_backend_registry, test_docs_build",
    "rgr.commands.common": "tested by feature in test_rendered_text",
    "rgr.commands.fix_merge": "no test imports it: reached through the modules that use it",
    "rgr.commands.history": "tested by feature in test_history_cache, test_history_rows",
    "rgr.commands.land_check": "no test imports it: reached through the modules that use it",
    "rgr.commands.queue": "no test imports it: reached through the modules that use it",
    "rgr.commands.repair_notes": "tested by feature in test_rendered_text",
    "rgr.commands.report": "no test imports it: reached through the modules that use it",
    "rgr.commands.rollback": "no test imports it: reached through the modules that use it",
    "rgr.commands.run": "tested by feature in test_serve",
    "rgr.commands.show":
        "tested by feature in test_acceptance_kernel, test_fakeit_kernel, test_flaky_rerun (+1)",
    "rgr.commands.status":
        "tested by feature in test_acceptance_kernel, test_fakeit_kernel, test_kernel (+1)",
    "rgr.crash": "no test imports it: reached through the modules that use it",
    "rgr.daemon.claims": "tested by feature in test_daemon_queue",
    "rgr.daemon.cron": "tested by feature in test_daemon_queue",
    "rgr.daemon.hub": "tested by feature in test_daemon, test_daemon_land, test_daemon_queue (+1)",
    "rgr.daemon.identity": "tested by feature in test_daemon_queue",
    "rgr.daemon.jobs": "no test imports it: reached through the modules that use it",
    "rgr.daemon.land": "tested by feature in test_daemon_land, test_merge_fix",
    "rgr.daemon.queue":
        "tested by feature in test_daemon, test_daemon_land, test_daemon_queue (+2)",
    "rgr.daemon.remote": "tested by feature in test_daemon_queue, test_note_one_record",
    "rgr.daemon.view": "tested by feature in test_daemon_queue, test_zero_config",
    "rgr.daemon.workcopy":
        "tested by feature in test_daemon_land, test_daemon_queue, test_merge_fix (+2)",
    "rgr.daemon.worker": "tested by feature in test_daemon_queue, test_zero_config",
    "rgr.demo.env": "tested by feature in test_demo",
    "rgr.demo.kata":
        "tested by feature in test_claude_releases, test_real_projects, test_referee_honest_langs "
        "(+2)",
    "rgr.ecosystems": "a package's docstring and imports: no code of its own",
    "rgr.ecosystems.base":
        "tested by feature in test_cargo_targets, test_js_direct, test_js_workspace (+5)",
    "rgr.ecosystems.declarations": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.failure_kind": "tested by feature in test_failure_kinds",
    "rgr.ecosystems.go": "a package's docstring and imports: no code of its own",
    "rgr.ecosystems.go.cheats": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.go.interface": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.go.language": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.go.narrowing": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.go.runner": "tested by feature in test_red_compiled_packages",
    "rgr.ecosystems.go.syntax": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.javascript": "a package's docstring and imports: no code of its own",
    "rgr.ecosystems.javascript.bun": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.javascript.cheats":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.javascript.direct": "tested by feature in test_js_direct",
    "rgr.ecosystems.javascript.interface":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.javascript.language":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.javascript.mixed": "tested by feature in test_js_mixed, test_mutation_scope",
    "rgr.ecosystems.javascript.modules":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.javascript.narrowing":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.javascript.reach": "tested by feature in test_mutation_scope",
    "rgr.ecosystems.javascript.runner": "tested by feature in test_mocha_versions",
    "rgr.ecosystems.javascript.syntax":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.javascript.ts_diagnostics": "tested by feature in test_red_typescript",
    "rgr.ecosystems.javascript.workspace": "tested by feature in test_js_workspace",
    "rgr.ecosystems.junit": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.jvm": "a package's docstring and imports: no code of its own",
    "rgr.ecosystems.jvm.cheats": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.jvm.direct": "tested by feature in test_jvm_direct",
    "rgr.ecosystems.jvm.javac_errors": "tested by feature in test_red_java",
    "rgr.ecosystems.jvm.language": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.jvm.narrowing": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.jvm.runner":
        "tested by feature in test_jvm_direct, test_mutation_java, test_verify",
    "rgr.ecosystems.jvm.syntax": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.language": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.php": "a package's docstring and imports: no code of its own",
    "rgr.ecosystems.php.language": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.php.runner": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.python": "a package's docstring and imports: no code of its own",
    "rgr.ecosystems.python.cheats":
        "tested by feature in test_cheat_idioms, through rgr.check.cheats (its rules' home)",
    "rgr.ecosystems.python.interface":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.python.language": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.python.pytest_own_outcomes":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.python.pytest_runner": "tested by feature in test_red_real_suites",
    "rgr.ecosystems.python.unittest_reporter":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.registry":
        "tested by feature in test_acceptance_kernel, test_blame_again, test_config (+21)",
    "rgr.ecosystems.ruby": "a package's docstring and imports: no code of its own",
    "rgr.ecosystems.ruby.cheats": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.ruby.defaults":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.ruby.interface": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.ruby.language": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.ruby.minitest": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.ruby.runner": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.rust": "a package's docstring and imports: no code of its own",
    "rgr.ecosystems.rust.cargo_config": "tested by feature in test_user_config",
    "rgr.ecosystems.rust.cargo_workspace": "tested by feature in test_red_compiled_packages",
    "rgr.ecosystems.rust.cheats": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.rust.language": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.rust.narrowing": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.rust.runner": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.rust.syntax": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.rust.test_modules":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.rust.values":
        "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.scope": "no test imports it: reached through the modules that use it",
    "rgr.ecosystems.test_scope":
        "tested by feature in test_cargo_targets, test_js_direct, test_jvm_direct (+2)",
    "rgr.ecosystems.tokens": "tested by feature in test_mutation_styles",
    "rgr.evaluate": "a package's docstring and imports: no code of its own",
    "rgr.evaluate.clone": "no test imports it: reached through the modules that use it",
    "rgr.evaluate.measure": "no test imports it: reached through the modules that use it",
    "rgr.evaluate.plot": "tested by feature in test_eval, test_eval_report",
    "rgr.evaluate.report": "tested by feature in test_eval_report",
    "rgr.evaluate.results": "tested by feature in test_eval_report, test_serve",
    "rgr.evaluate.rgr_mode": "no test imports it: reached through the modules that use it",
    "rgr.evaluate.runner": "no test imports it: reached through the modules that use it",
    "rgr.evaluate.solo": "no test imports it: reached through the modules that use it",
    "rgr.evaluate.stats": "tested by feature in test_eval_report",
    "rgr.evaluate.tasks": "tested by feature in test_eval_katas, test_eval_tasks",
    "rgr.evaluate.vault": "tested by feature in test_eval_tasks",
    "rgr.fake_model.chat": "tested by feature in test_fake_chat, test_opencode_backend",
    "rgr.fake_model.gemini": "tested by feature in test_fake_gemini, test_gemini_backend",
    "rgr.fake_model.responses":
        "tested by feature in test_codex_backend, test_codex_loop, test_codex_parts (+1)",
    "rgr.fake_model.script": "no test imports it: reached through the modules that use it",
    "rgr.fake_model.server": "tested by feature in test_codex_loop, test_fake_model, test_tdd_loop",
    "rgr.help_text": "tested by feature in test_startup",
    "rgr.history_quick": "tested by feature in test_history_table",
    "rgr.launch": "tested by feature in test_startup",
    "rgr.loop": "a package's docstring and imports: no code of its own",
    "rgr.loop.outputs":
        "tested by feature in test_codex_parts, test_rough_edges, test_structured_answers",
    "rgr.loop.prompting": "tested by feature in test_fakeit, test_impact",
    "rgr.loop.retry": "tested by feature in test_kernel",
    "rgr.loop.sessions": "no test imports it: reached through the modules that use it",
    "rgr.loop.starting": "tested by feature in test_rough_edges, test_serve",
    "rgr.loop.summaries": "no test imports it: reached through the modules that use it",
    "rgr.mergefix": "a package's docstring and imports: no code of its own",
    "rgr.mergefix.engine": "tested by feature in test_kernel",
    "rgr.observe.artifacts": "tested by feature in test_event_codec, test_observe",
    "rgr.observe.events":
        "tested by feature in test_cheat_idioms, test_event_codec, test_judged_by_content (+2)",
    "rgr.observe.invocation": "no test imports it: reached through the modules that use it",
    "rgr.observe.limits": "tested by feature in test_kernel, test_observe",
    "rgr.observe.report":
        "tested by feature in test_acceptance_kernel, test_fakeit_kernel, test_kernel (+1)",
    "rgr.observe.report_text":
        "tested by feature in test_acceptance_kernel, test_fakeit_kernel, "
        "test_report_backend_words",
    "rgr.observe.summary": "tested by feature in test_judged_by_content, test_kernel, test_observe",
    "rgr.observe.view": "tested by feature in test_observe",
    "rgr.refactor.api": "tested by feature in test_refactor",
    "rgr.refactor.checks":
        "tested by feature in test_cheat_idioms, test_refactor, test_refactor_rename",
    "rgr.refactor.engine": "tested by feature in test_kernel, test_refactor",
    "rgr.refactor.index": "tested by feature in test_refactor, test_refactor_rename",
    "rgr.refactor.plan":
        "tested by feature in test_cheat_idioms, test_refactor, test_refactor_rename (+2)",
    "rgr.refactor.rename": "tested by feature in test_refactor, test_refactor_rename",
    "rgr.sandbox.bridge": "tested by feature in test_gateway, test_sandbox",
    "rgr.sandbox.capabilities": "tested by feature in test_root_capabilities",
    "rgr.sandbox.explain": "no test imports it: reached through the modules that use it",
    "rgr.sandbox.jail":
        "tested by feature in test_edit_guard, test_judged_by_content, test_least_privilege (+2)",
    "rgr.sandbox.policy":
        "tested by feature in test_least_privilege, test_mutation_equivalence, test_runners (+3)",
    "rgr.sandbox.pretool": "tested by feature in test_edit_guard",
    "rgr.sandbox.read_only": "tested by feature in test_writable_copy",
    "rgr.sandbox.relay": "no test imports it: reached through the modules that use it",
    "rgr.sandbox.sealer":
        "tested by feature in test_acceptance_kernel, test_blame_again, "
        "test_fakeit_kernel (+6)",
    "rgr.sandbox.secrets": "no test imports it: reached through the modules that use it",
    "rgr.store": "a package's docstring and imports: no code of its own",
    "rgr.store.acceptance_store":
        "tested by feature in test_acceptance_kernel, test_acceptance_parts, test_examiner (+1)",
    "rgr.store.acceptance_text": "no test imports it: reached through the modules that use it",
    "rgr.store.agents":
        "tested by feature in test_backend_registry, test_structured_answers, test_tdd_loop",
    "rgr.store.debt_text": "no test imports it: reached through the modules that use it",
    "rgr.store.git":
        "tested by feature in test_acceptance_parts, test_blame_again, test_fakeit (+4)",
    "rgr.store.gitcli":
        "tested by feature in test_daemon, test_daemon_land, test_daemon_queue (+3)",
    "rgr.store.handoff_state":
        "tested by feature in test_handoff_read, test_note_json, test_note_one_record",
    "rgr.store.history": "tested by feature in test_history_cache",
    "rgr.store.history.cache": "tested by feature in test_history_cache",
    "rgr.store.history.newest": "no test imports it: reached through the modules that use it",
    "rgr.store.history.rows": "tested by feature in test_history_cache, test_history_rows",
    "rgr.store.inflight": "tested by feature in test_kernel, test_note_updates, test_recovery",
    "rgr.store.locks": "tested by feature in test_recovery",
    "rgr.store.merging": "tested by feature in test_kernel, test_merge_fix",
    "rgr.store.notes_log": "no test imports it: reached through the modules that use it",
    "rgr.store.objects": "no test imports it: reached through the modules that use it",
    "rgr.store.workspace":
        "tested by feature in test_acceptance_kernel, test_blame_again, test_fakeit (+11)",
    "rgr.tdd": "a package's docstring and imports: no code of its own",
    "rgr.tdd.engine":
        "tested by feature in test_acceptance_kernel, test_blame_again, "
        "test_fakeit_kernel (+3)",
    "rgr.tdd.examine": "no test imports it: reached through the modules that use it",
    "rgr.web": "a package's docstring and imports: no code of its own",
    "rgr.web.actions": "no test imports it: reached through the modules that use it",
    "rgr.web.app": "tested by feature in test_eval_report",
    "rgr.web.board": "no test imports it: reached through the modules that use it",
    "rgr.web.evals": "tested by feature in test_eval_report",
    "rgr.web.history": "no test imports it: reached through the modules that use it",
    "rgr.web.local_runs": "no test imports it: reached through the modules that use it",
    "rgr.web.plots": "no test imports it: reached through the modules that use it",
    "rgr.web.runs": "no test imports it: reached through the modules that use it",
    "rgr.web.security": "tested by feature in test_serve",
}


def _modules(package: Path) -> dict[str, Path]:
    """Every module of ``package`` by its dotted name (a package by its own)."""
    found = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(package.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def _test_file_names(tests: Path) -> set[str]:
    return {path.name for path in tests.rglob("test_*.py") if "node_modules" not in path.parts}


def _without_test_file(modules: dict[str, Path], test_names: set[str]) -> set[str]:
    """The modules no ``test_<module>.py`` is named for (by the module's own name: the
    last part of its dotted name)."""
    return {name for name in modules if f"test_{name.rpartition('.')[2]}.py" not in test_names}


def _unexplained_and_stale(modules: dict[str, Path], test_names: set[str],
                           listed: dict[str, str]) -> tuple[list[str], list[str]]:
    """(modules without a test file that the list does not give a reason for, listed
    modules that have one now or are gone)."""
    without = _without_test_file(modules, test_names)
    return sorted(without - set(listed)), sorted(set(listed) - without)


def test_every_module_has_its_test_file_or_a_reason() -> None:
    unexplained, _ = _unexplained_and_stale(_modules(REPO_ROOT / "rgr"),
                                            _test_file_names(REPO_ROOT / "tests"),
                                            WITHOUT_TEST_FILE)
    assert unexplained == [], "write tests/test_<module>.py for each"


def test_the_list_only_shrinks() -> None:
    _, stale = _unexplained_and_stale(_modules(REPO_ROOT / "rgr"),
                                      _test_file_names(REPO_ROOT / "tests"), WITHOUT_TEST_FILE)
    assert stale == [], "these have a test file now (or are gone): take them off the list"


def test_each_reason_says_something() -> None:
    assert [name for name, reason in WITHOUT_TEST_FILE.items() if len(reason.split()) < 3] == []


def test_the_check_sees_a_module_without_its_test_file(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    for name in ("__init__.py", "alpha.py", "beta.py", "sub/__init__.py", "sub/gamma.py"):
        (package / name).write_text("")
    tests = tmp_path / "tests"
    (tests / "sub").mkdir(parents=True)
    (tests / "test_alpha.py").write_text("")
    (tests / "sub" / "test_gamma.py").write_text("")
    modules, names = _modules(package), _test_file_names(tests)
    assert _without_test_file(modules, names) == {"pkg", "pkg.beta", "pkg.sub"}
    assert _unexplained_and_stale(modules, names, {"pkg": "why", "pkg.alpha": "why",
                                                   "pkg.sub": "why"}) == (
        ["pkg.beta"], ["pkg.alpha"])
