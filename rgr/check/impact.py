"""Impact hints: the existing tests that run the files a phase is about to change, so
the agent runs those first.

They come from the coverage rgr already collects: the mutation gate's line tracer
records, per tree, which test ran which line of the files a phase changed
(rgr.ecosystems.traced, ``<git dir>/rgr/coverage/``: read here whichever language's
tracer wrote it). A file no earlier gate traced (its first cycle, a language the gate
does not trace yet) has no hint; a test that no longer exists at the phase's base is
left out. Nothing is run to make a hint.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable
from pathlib import Path

from rgr.ecosystems.traced import FOLDER, Coverage, load

#: At most this many test ids in a hint, and this many characters: the hint rides in
#: the first request of a phase, which stays under 16 KB.
MAX_TESTS = 8
MAX_CHARS = 480


def tests_running(git_dir: Path, files: Iterable[str],
                  existing: Collection[str] | None = None) -> list[str]:
    """The test ids that ran a line of any of ``files`` in the cached coverage, newest
    cache first, each cache's ids sorted, without ids not in ``existing``. Sorted, not in
    the order the tracer saw them run: that order changes from run to run under
    pytest-randomly or xdist, and the hint rides in the prompt, which should not."""
    wanted = set(files)
    found: dict[str, None] = {}
    folder = git_dir / FOLDER
    try:
        caches = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime, reverse=True)
    except OSError:
        return []
    for cache in caches:
        # None: being replaced or damaged, no hint
        coverage: Coverage[object] | None = load(git_dir, cache.stem)
        if coverage is None:
            continue
        for test, ran in sorted(coverage.by_test.items()):
            if wanted & set(ran) and (existing is None or test in existing):
                found.setdefault(test, None)
    return list(found)


def hint(git_dir: Path, files: list[str], existing: Collection[str] | None = None) -> str:
    """The prompt's lines naming the tests that run ``files``, or "" when none is known."""
    files = [f for f in files if f]
    tests = tests_running(git_dir, files, existing)
    if not tests:
        return ""
    shown: list[str] = []
    for test in tests[:MAX_TESTS]:
        if sum(len(t) + 2 for t in [*shown, test]) > MAX_CHARS:
            break
        shown.append(test)
    more = len(tests) - len(shown)
    where = ", ".join(f"`{f}`" for f in files)
    return (f"Existing tests that run {where} (from rgr's coverage; run these first): "
            + ", ".join(f"`{t}`" for t in shown) + (f" and {more} more" if more else ""))
