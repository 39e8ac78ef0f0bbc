"""RSpec: its ``json`` formatter into rgr's directory, the progress formatter on stdout.

Ids are ``<spec file>::<full description>``. A spec file that fails to load is listed in
the report's ``messages`` (``An error occurred while loading ./spec/x_spec.rb``).
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

from rgr.base.config import TestCommand
from rgr.ecosystems.base import (
    PROBE_EXIT_CODE,
    Finished,
    Guess,
    MutationSyntax,
    Plain,
    Results,
    Status,
    TestOutcome,
    detected,
    existing,
    message,
    read_report,
    relative,
)
from rgr.ecosystems.ruby import blocks, defaults, statements
from rgr.ecosystems.ruby.failure_kinds import failure_kind
from rgr.ecosystems.ruby.minitest import Minitest

REPORT = "rspec.json"
_STATUS: dict[str, Status] = {"passed": "passed", "failed": "failed", "pending": "skipped"}
_LOAD_ERROR = re.compile(r"An error occurred while loading (\S+?)\.?(?:\s|$)", re.MULTILINE)


class RSpec:
    name = "rspec"
    label = "RSpec"

    def prepare(self, cmd: TestCommand, tmp: Path, env: dict[str, str]) -> tuple[str, ...]:
        return (*cmd.argv, "--format", "progress", "--format", "json", "--out",
                str(tmp / REPORT))

    def read(self, run: Finished) -> Results:
        results = Results()
        try:
            data = json.loads(read_report(run.tmp / REPORT))
        except (OSError, ValueError) as exc:
            data = None
            results.report_error = f"RSpec wrote no readable report: {exc}"
        texts = [run.output]
        if isinstance(data, dict):
            texts += [str(m) for m in data.get("messages") or []]
            for example in data.get("examples") or []:
                file = relative(str(example.get("file_path", "")), run.root)
                status = _STATUS.get(str(example.get("status")), "failed")
                error = example.get("exception") or {}
                text = f"{error.get('class', '')}: {error.get('message', '')}" if error else ""
                results.add(TestOutcome(f"{file}::{example.get('full_description', '')}",
                                        existing(run.root, file), status, message(text)))
        results.classify(failure_kind)
        for raw in _LOAD_ERROR.findall("\n".join(texts)):
            results.load_error(relative(raw, run.root))
        if results.collection_errors:
            results.report_error = None
        results.no_tests = (run.done.returncode == 0 and isinstance(data, dict)
                            and not results.outcomes)
        return results

    def fix(self) -> str:
        return "run rspec directly (`bundle exec rspec`) so that rgr can add its formatters"


class Ruby(Plain):
    name = "Ruby (RSpec, Minitest)"
    runners = (RSpec(), Minitest())
    test_config_globs = ("**/Gemfile", "**/.rspec")
    lockfiles = ("Gemfile.lock",)
    # exit! ends the process at once: no at_exit hook, no rescue in a test can catch it
    mutation_syntax = (MutationSyntax(
        "ruby", (".rb",), f"exit!({PROBE_EXIT_CODE})",
        declarations=r"^\s*(require|require_relative|load|autoload)\b",
        arid=defaults.unread_defaults, fakeit_tokens=blocks.braced, tail_returns=True,
        statement_mutants=statements.statement_mutants,
        guarded_statement=statements.guarded_statement),)

    def detect(self, root: Path, guess: Guess) -> TestCommand | None:
        gemfile = root / "Gemfile"
        gems = gemfile.read_text(errors="replace") if gemfile.is_file() else ""
        if (root / ".rspec").is_file() or "rspec" in gems:
            if gemfile.is_file():
                return detected(("bundle", "exec", "rspec"), "rspec", "Gemfile")
            return detected(("rspec",), "rspec", ".rspec")
        rakefile = root / "Rakefile"
        if rakefile.is_file() and "TestTask" in rakefile.read_text(errors="replace"):
            argv = ("rake", "test")
            return detected(("bundle", "exec", *argv) if gems else argv, "minitest",
                            "Rakefile")
        return None

    def runner_named(self, names: Sequence[str], words: Sequence[str]) -> str | None:
        if "rspec" in names or ("rake" in names and "spec" in words):
            return "rspec"
        # Minitest runs inside Ruby itself: `ruby -Itest test/x_test.rb`, `rake test`
        return "minitest" if {"ruby", "rake"} & set(names) else None


ECOSYSTEM = Ruby()
