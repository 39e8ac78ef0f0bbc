"""The corpus's reading of a project's own Vitest and Minitest summaries
(bench/corpus/projects.py): the count `rgr verify` is held to, so a misread summary would
hide a disagreement."""

from __future__ import annotations

from bench.corpus.projects import minitest_passed, vitest_passed

#: Vitest 4.1's closing lines as `npm run test:vi` printed them for css-what 8.0.0
#: (colours kept: Vitest colours its summary even when piped).
GREEN = ("\x1b[2m Test Files \x1b[22m \x1b[1m\x1b[32m3 passed\x1b[39m\x1b[22m\x1b[90m (3)"
         "\x1b[39m\n\x1b[2m      Tests \x1b[22m \x1b[1m\x1b[32m936 passed\x1b[39m\x1b[22m"
         "\x1b[90m (936)\x1b[39m\n\x1b[2m   Start at \x1b[22m 06:55:56\n")


def test_the_passed_tests_not_the_passed_files() -> None:
    assert vitest_passed(GREEN) == 936


def test_failed_and_skipped_tests_are_not_counted() -> None:
    summary = (" Test Files  1 failed | 2 passed (3)\n"
               "      Tests  2 failed | 933 passed | 1 skipped (936)\n")
    assert vitest_passed(summary) == 933


def test_no_summary_is_no_count() -> None:
    assert vitest_passed("Error: Cannot find module 'vitest'\n") is None


def test_minitest_counts_runs_less_failures_errors_and_skips() -> None:
    # minitest 5.15.0's own suite, as Debian's Ruby ships it
    assert minitest_passed("Finished in 1.539415s, 252.6934 runs/s\n\n"
                           "389 runs, 1126 assertions, 0 failures, 0 errors, 10 skips\n") == 379
    assert minitest_passed("5 runs, 3 assertions, 1 failures, 1 errors, 1 skips\n") == 2
    assert minitest_passed("cannot load such file -- hoe (LoadError)\n") is None
