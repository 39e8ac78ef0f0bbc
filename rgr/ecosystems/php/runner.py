"""PHP: PHPUnit, found from ``phpunit.xml`` or ``composer.json``, its ``--log-junit``
report written into rgr's own directory.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from pathlib import Path

from rgr.base.config import TestCommand
from rgr.ecosystems.base import Finished, Guess, Plain, Results, detected, relative
from rgr.ecosystems.junit import read_reports

_PHP_FATAL = re.compile(r" in (/\S+?\.php)(?::\d+| on line \d+)")


class PHPUnit:
    """PHPUnit's ``--log-junit``, into rgr's own directory."""

    name = "phpunit"
    label = "PHPUnit"

    def prepare(self, cmd: TestCommand, tmp: Path, env: dict[str, str]) -> tuple[str, ...]:
        return (*cmd.argv, "--log-junit", str(tmp / "phpunit.xml"))

    def read(self, run: Finished) -> Results:
        results = Results()
        path = run.tmp / "phpunit.xml"
        if path.is_file():
            read_reports(run, [path], results, jvm=False, by_file=True)
        if run.done.returncode != 0:
            for raw in _PHP_FATAL.findall(run.output):
                file = relative(raw, run.root)
                if not file.startswith(("/", "vendor/")):  # PHPUnit's own files are not it
                    results.load_error(file)
        if not path.is_file() and not results.collection_errors:
            results.report_error = f"PHPUnit wrote no JUnit report (exit code " \
                                   f"{run.done.returncode})"
        results.no_tests = (run.done.returncode == 0 and not results.outcomes
                            and "No tests executed" in run.output)
        return results

    def fix(self) -> str:
        return "run PHPUnit directly (vendor/bin/phpunit) so that rgr can add --log-junit"


class PHP(Plain):
    name = "PHP (PHPUnit)"
    runners = (PHPUnit(),)
    test_config_globs = ("**/phpunit.xml*",)
    lockfiles = ("composer.lock",)

    def detect(self, root: Path, guess: Guess) -> TestCommand | None:
        for name in ("phpunit.xml", "phpunit.xml.dist"):
            if (root / name).is_file():
                return detected(("vendor/bin/phpunit",), "phpunit", name)
        composer = root / "composer.json"
        if composer.is_file() and "phpunit/phpunit" in composer.read_text(errors="replace"):
            return detected(("vendor/bin/phpunit",), "phpunit", "composer.json")
        return None

    def runner_named(self, names: Sequence[str], words: Sequence[str]) -> str | None:
        return "phpunit" if "phpunit" in names else None


ECOSYSTEM = PHP()
