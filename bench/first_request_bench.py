"""The first model request of every phase, on every backend, in bytes: the table of
docs/backends.md ("The first request of each phase").

Runs the one-test kata of the end-to-end suite (PLAN, RED, GREEN, REFACTOR, the closing
PLAN, then the hidden examiner's session, on as for any user) through the rgr CLI once
per backend in the registry: the pinned agent CLI,
sandboxed, against its scripted local model server (rgr.fake_model), which keeps every
request. Prints, per backend and phase, the bytes of the session's first request, the
tools it offered and its system prompt's size; exits 1 when one is over the limit.

    python bench/first_request_bench.py                 # every backend
    python bench/first_request_bench.py gemini codex    # some
    python bench/first_request_bench.py opencode:qwen3-coder   # a backend with a model

A model matters to opencode: it offers a GPT model ``apply_patch`` where it offers any
other ``write`` and ``edit``.

Target (issue 45): at most 16 KB (16384 bytes) on every backend and phase.
"""

from __future__ import annotations

import re
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from kata import (  # noqa: E402
    TEST_FILE_1,
    make_project,
    model_server,
    one_test_kata_tail,
    plan,
    red,
    rgr,
    rgr_env,
)

from rgr.base.backend_names import NAMES  # noqa: E402
from rgr.fake_model import SessionScript, structured, write  # noqa: E402

LIMIT = 16 * 1024

#: The agent a session's system prompt names, and the phase it works in.
ROLES = {"PLANNER": "PLAN", "TESTER": "RED", "IMPLEMENTER": "GREEN",
         "REFACTORER": "REFACTOR", "EXAMINER": "EXAMINE"}

#: The examiner's session after the closing PLAN: one hidden acceptance test the kata's
#: slugify passes.
EXAMINER = SessionScript(
    [write("test_rgr_acceptance.py", "from slug import slugify\n\n\n"
           "def test_lowercases_a_word():\n    assert slugify('Hello') == 'hello'\n"),
     structured({"tests": [{"name": "test_lowercases_a_word",
                            "behaviour": "slugify lowercases a word"}]})],
    expect_system_contains="You are the EXAMINER", name="examiner")
_ROLE = re.compile(r"You are the (\w+)")


def phase_of(system: str, index: int) -> str:
    found = _ROLE.search(system)
    if found is not None and found.group(1) in ROLES:
        return ROLES[found.group(1)]
    return f"session {index}"


def measure(name: str) -> list[tuple[str, int, int, int]] | str:
    """(phase, first request bytes, tools offered, system prompt chars) per session of
    the kata on ``name`` (a backend, or ``backend:model``), or what went wrong."""
    backend, _, model = name.partition(":")
    tmp = Path(tempfile.mkdtemp(prefix=f"rgr-first-request-{backend}-"))
    repo = make_project(tmp / "kata", backend)
    scripts = [plan(0, first=True, total=1), red(TEST_FILE_1, first=True),
               *one_test_kata_tail(), EXAMINER]
    with model_server(backend)(scripts, keep_bodies=True) as server:
        env = rgr_env(tmp / "home", server.url, backend)
        del env["TDD_ACCEPTANCE_MODE"]  # the examiner on, as for any user
        if model:
            env["TDD_MODEL"] = model
        done = rgr(["run", "--yes", "--skip-preflight", "slugify"], repo, env)
        if done.returncode != 0:
            return (done.stdout + done.stderr)[-3000:]
        rows = []
        seen: set[str | None] = set()
        for record in server.requests:
            if record.step == "side" or not record.tools or record.session_id in seen:
                continue
            seen.add(record.session_id)
            # the offered tools, without the structured answer the fake adds
            tools = len([t for t in record.tools if t != "StructuredOutput"])
            rows.append((phase_of(record.system or "", len(rows)), record.body_bytes, tools,
                         len(record.system or "")))
    return rows


def main(argv: list[str]) -> int:
    backends = argv or list(NAMES)
    over = False
    print(f"{'backend':<8} {'phase':<9} {'first request':>14} {'tools':>6} {'system':>8}")
    for backend in backends:
        rows = measure(backend)
        if isinstance(rows, str):
            print(f"{backend}: the kata did not complete:\n{rows}")
            return 1
        for phase, size, tools, system in rows:
            mark = "" if size <= LIMIT else "  OVER 16 KB"
            over = over or size > LIMIT
            print(f"{backend:<8} {phase:<9} {size:>8} B {size / 1024:>4.1f}K {tools:>5} "
                  f"{system:>7}c{mark}")
    print(f"limit: {LIMIT} B (16 KB) per first request")
    return 1 if over else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
