"""The first model request of each phase on the Gemini CLI backend, in bytes.

Runs the one-test kata of the end-to-end suite through the rgr CLI (the pinned gemini,
sandboxed, against rgr.fake_model.gemini) and prints, per session, the size of its
first scripted request, its system prompt and how many tools it offers.

    python bench/request_size_gemini.py

Measured 2026-11-26 with gemini 0.61.0: 16.0-16.5 KB per phase (7 tools, rgr's system
prompt); the CLI's defaults (its own prompt, 16 tools) make it about 48.7 KB. Every
backend at once, with the tools now chosen per agent: bench/first_request_bench.py.
"""

from __future__ import annotations

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

from rgr.base.backend_names import GEMINI  # noqa: E402


def main() -> int:
    tmp = Path(tempfile.mkdtemp(prefix="rgr-request-size-gemini-"))
    repo = make_project(tmp / "kata", GEMINI)
    scripts = [plan(0, first=True, total=1), red(TEST_FILE_1, first=True),
               *one_test_kata_tail()]
    with model_server(GEMINI)(scripts, keep_bodies=True) as server:
        done = rgr(["run", "--yes", "--skip-preflight", "slugify"], repo,
                   rgr_env(tmp / "home", server.url, GEMINI))
        if done.returncode != 0:
            print(done.stdout + done.stderr)
            return 1
        seen: set[str | None] = set()
        for record in server.requests:
            if record.step != "side" and record.session_id not in seen:
                seen.add(record.session_id)
                print(f"session {record.script_index}: first request {record.body_bytes} B, "
                      f"system prompt {len(record.system)} chars, "
                      f"{len(record.tools) - 1} tools")
    return 0


if __name__ == "__main__":
    sys.exit(main())
