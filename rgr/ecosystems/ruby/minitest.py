"""Minitest: rgr's reporter plugin (``rgr_plugin.rb`` beside this file) writes one JSON
line per test into rgr's folder; Minitest's own summary stays on stdout.

Ids are ``<test file>::<class>#<test method>`` (a spec-style ``it`` is the method
Minitest names ``test_0001_<description>``). A test file that fails to load stops the
whole process before any test runs: Ruby's report of the uncaught exception names the
project's files it came through, the outermost being the test file.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from rgr.base.config import TestCommand
from rgr.ecosystems.base import (
    Finished,
    Results,
    Status,
    TestOutcome,
    existing,
    json_lines,
    message,
    read_report,
    relative,
)
from rgr.ecosystems.ruby.failure_kinds import failure_kind

#: rgr's plugin, shipped inside the package; Minitest loads ``minitest/*_plugin.rb``
#: from the load path.
PLUGIN = Path(__file__).with_name("rgr_plugin.rb")
REPORT = "minitest.jsonl"
#: Where the plugin is told to write (it writes nothing without it).
REPORT_VARIABLE = "RGR_MINITEST_REPORT"
_STATUS: dict[str, Status] = {"passed": "passed", "failed": "failed", "error": "error",
                              "skipped": "skipped"}
#: Ruby's report of an uncaught exception: ``file:line:in `where': message (Class)``,
#: then ``\tfrom file:line:in `where'`` per frame; a frame of Ruby's own ``require``
#: is written ``<internal:.../kernel_require.rb>:85`` (a ``require`` of a file not there
#: yet raises there), a command line's ``-e:1``.
_UNCAUGHT = re.compile(r"^(?:<internal:)?(?P<file>[^\s:>]+\.rb)>?:\d+:in [^\n]*"
                       r"\((?P<cls>[A-Z][\w:]*)\)$", re.MULTILINE)
_FRAME = re.compile(r"^\s+from (?:<internal:)?(?P<file>[^\s:>]+)>?:\d+:in ", re.MULTILINE)
#: Minitest's summary when it ran no test.
_NO_RUNS = re.compile(r"^0 runs, 0 assertions", re.MULTILINE)


class Minitest:
    name = "minitest"
    label = "Minitest"

    def prepare(self, cmd: TestCommand, tmp: Path, env: dict[str, str]) -> tuple[str, ...]:
        # A copy in rgr's own folder: a sandboxed run sees that folder, not necessarily
        # where rgr is installed. RUBYLIB reaches every Ruby the command starts.
        folder = tmp / "ruby" / "minitest"
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(PLUGIN, folder / PLUGIN.name)
        env["RUBYLIB"] = ":".join(filter(None, (str(folder.parent), env.get("RUBYLIB", ""))))
        env[REPORT_VARIABLE] = str(tmp / REPORT)
        return cmd.argv

    def read(self, run: Finished) -> Results:
        results = Results()
        try:
            lines: list[str] | None = read_report(run.tmp / REPORT).splitlines()
        except OSError:
            lines = None
        for row in json_lines(lines or []):
            if not isinstance(row, dict):
                continue
            file = relative(str(row.get("file", "")), run.root)
            status = _STATUS.get(str(row.get("status")), "failed")
            results.add(TestOutcome(f"{file}::{row.get('class', '')}#{row.get('name', '')}",
                                    existing(run.root, file), status,
                                    message(str(row.get("message") or ""))))
        results.classify(failure_kind)
        if not results.outcomes:
            self._load_errors(run, results)
        if lines is None and not results.collection_errors:
            if run.done.returncode == 0 and (_NO_RUNS.search(run.output)
                                             or not _has_test_files(run.root)):
                results.no_tests = True
            else:
                results.report_error = (f"Minitest reported no test to {run.tmp / REPORT} "
                                        f"(exit code {run.done.returncode})")
        return results

    def _load_errors(self, run: Finished, results: Results) -> None:
        """The test file (the outermost of the project's files in the trace) that raised
        while loading, and why."""
        text = run.output
        for uncaught in _UNCAUGHT.finditer(text):
            rest = text[uncaught.end():]
            frames = [uncaught["file"]]
            for line in rest.splitlines()[1:]:
                frame = _FRAME.match(line)
                if frame is None:
                    break
                frames.append(frame["file"])
            mine = [relative(str((run.root / f).resolve()) if not f.startswith("/") else f,
                             run.root) for f in frames]
            mine = [f for f in mine if not f.startswith("/") and (run.root / f).is_file()]
            if mine:
                why = f"{uncaught['cls']}: {uncaught.group(0)}"
                results.load_error(mine[-1], failure_kind(
                    TestOutcome(mine[-1], mine[-1], "error", why)))

    def fix(self) -> str:
        return ("run the tests through Ruby with Minitest's autorun (`rake test`, "
                "`ruby -Ilib -Itest test/x_test.rb`) so that rgr's plugin, put on RUBYLIB, "
                "reports each test")


def _has_test_files(root: Path) -> bool:
    """Whether the project has a file named as Minitest's tests are (``x_test.rb``,
    ``test_x.rb``) outside its installed gems. With none, ``rake test`` starts no Ruby
    that loads Minitest, and says nothing: a project with no test yet."""
    for pattern in ("*_test.rb", "test_*.rb"):
        for path in root.rglob(pattern):
            parts = path.relative_to(root).parts
            if not {"vendor", ".bundle", ".git"} & set(parts):
                return True
    return False
