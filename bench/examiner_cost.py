"""The examiner's share of a kata run's agent cost (issue 36: at most 15%).

Runs the two-test slugify kata of the end-to-end suite through the rgr CLI with the
examiner on (the real claude, the scripted model server, real git and pytest), the
examiner scripted to write three acceptance tests, and prints what `rgr report --json`
says the run's agent sessions cost (what claude computed from the token counts the
scripted server reported) against the examiner's own session, and its first request's
size beside the phases'.

    python bench/examiner_cost.py            # the pinned Claude Code release
    python bench/examiner_cost.py newest     # or the newest tested one, or a version
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from harness import ensure_claude  # noqa: E402
from kata import rgr_env, two_test_kata  # noqa: E402

from rgr.backends.claude_release import NEWEST, PINNED  # noqa: E402
from rgr.demo import kata as _kata  # noqa: E402
from rgr.fake_model import FakeModelServer, SessionScript, structured, write  # noqa: E402

TARGET = 0.15
ACCEPTANCE = """from slug import slugify


def test_lowercases_a_word():
    assert slugify("Python") == "python"


def test_joins_three_words_with_dashes():
    assert slugify("Red Green Refactor") == "red-green-refactor"


def test_keeps_a_lowercase_word():
    assert slugify("tdd") == "tdd"
"""
TESTS = [{"name": "test_lowercases_a_word", "behaviour": "slugify lowercases a word"},
         {"name": "test_joins_three_words_with_dashes",
          "behaviour": "slugify joins several words with dashes"},
         {"name": "test_keeps_a_lowercase_word",
          "behaviour": "slugify leaves a lowercase word as it is"}]


def examiner() -> SessionScript:
    return SessionScript([write("test_rgr_acceptance.py", ACCEPTANCE),
                          structured({"tests": TESTS})],
                         expect_system_contains="You are the EXAMINER", name="examiner")


def main(argv: list[str]) -> int:
    wanted = argv[0] if argv else "pinned"
    version = {"pinned": PINNED, "newest": NEWEST}.get(wanted, wanted)
    claude = ensure_claude(version)
    with tempfile.TemporaryDirectory(prefix="rgr-examiner-cost-") as tmp:
        repo = _kata.make_project(Path(tmp) / "kata", [sys.executable, "-m", "pytest", "-q"],
                                  str(claude))
        home = Path(tmp) / "home"
        with FakeModelServer([*two_test_kata(), examiner()], keep_bodies=True) as server:
            env = rgr_env(home, server.url)
            env.pop("TDD_ACCEPTANCE_MODE")  # on, as for any user
            began = time.monotonic()
            done = subprocess.run([sys.executable, "-m", "rgr", "run", "--yes",
                                   "add a slugify function that lowercases and joins words "
                                   "with dashes"], cwd=repo, env=env, capture_output=True,
                                  text=True)
            took = time.monotonic() - began
            records = list(server.requests)
        if done.returncode != 0:
            print(done.stdout + done.stderr)
            return 1
        report = json.loads(subprocess.run(
            [sys.executable, "-m", "rgr", "report", "--json"], cwd=repo,
            env=rgr_env(home, "http://127.0.0.1:9"), capture_output=True, text=True,
            check=True).stdout)
    total = float(report["costUsd"])
    acceptance = report["acceptance"] or {}
    examiner_cost = float(acceptance.get("costUsd") or 0.0)
    share = examiner_cost / total if total else 0.0
    first: dict[str, tuple[int, str]] = {}
    for record in records:
        if record.session_id and "StructuredOutput" in record.tools:
            role = "examiner" if "You are the EXAMINER" in record.system else "phase"
            first.setdefault(record.session_id, (record.body_bytes, role))
    phase_sizes = [size for size, role in first.values() if role == "phase"]
    examiner_sizes = [size for size, role in first.values() if role == "examiner"]
    print(f"Claude Code {version}: kata run with the examiner on, {took:.1f}s wall; "
          f"verdict {acceptance.get('verdict')}, {len(acceptance.get('tests') or [])} tests")
    print(f"run's agent cost ${total:.4f} over {report['agentSessions']} sessions; "
          f"examiner ${examiner_cost:.4f} = {100 * share:.1f}% (target <= "
          f"{100 * TARGET:.0f}%)")
    print(f"first request bytes: phases {phase_sizes}; examiner {examiner_sizes}")
    return 0 if share <= TARGET else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
