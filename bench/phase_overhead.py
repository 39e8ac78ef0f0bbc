"""rgr's own overhead per phase: everything but the agent's and the test runner's time.

Runs the two-test kata of the end-to-end suite in-process (real claude from
tests/e2e/node, the scripted model server, real git and pytest), timing each phase and
subtracting the agent session and the test run inside it.

    python bench/phase_overhead.py

Target (issue 3): median overhead under 100 ms. Also prints the first request each
phase sends to the model (target: at most 16 KB).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from kata import make_project, rgr_env, two_test_kata  # noqa: E402

from rgr.backends.base import AgentRequest, AgentResult  # noqa: E402
from rgr.backends.claude import ClaudeBackend  # noqa: E402
from rgr.commands.run import run  # noqa: E402
from rgr.fake_model import FakeModelServer  # noqa: E402
from rgr.loop import tdd as orch_module  # noqa: E402
from rgr.loop.starting import RunOptions  # noqa: E402
from rgr.store.workspace import open_workspace  # noqa: E402


@dataclass
class TimedBackend:
    inner: ClaudeBackend
    name: str = "claude"
    spent: list[float] = field(default_factory=list)

    def version(self) -> str:
        return self.inner.version()

    def check_login(self, cwd: Path) -> None:
        self.inner.check_login(cwd)

    def run(self, request: AgentRequest) -> AgentResult:
        started = time.perf_counter()
        try:
            return self.inner.run(request)
        finally:
            self.spent.append(time.perf_counter() - started)


def main() -> int:
    phase_times: list[float] = []
    test_times: list[tuple[int, float]] = []  # (index of the phase running, seconds)
    original_phase = orch_module.Orchestrator.run_phase
    original_tests = orch_module.run_tests

    def timed_phase(self: orch_module.Orchestrator, prev: object) -> object:
        started = time.perf_counter()
        try:
            return original_phase(self, prev)  # type: ignore[arg-type]
        finally:
            phase_times.append(time.perf_counter() - started)

    def timed_tests(*args: object, **kwargs: object) -> object:
        started = time.perf_counter()
        try:
            return original_tests(*args, **kwargs)  # type: ignore[arg-type]
        finally:
            test_times.append((len(phase_times), time.perf_counter() - started))

    orch_module.Orchestrator.run_phase = timed_phase  # type: ignore[assignment,method-assign]
    orch_module.run_tests = timed_tests  # type: ignore[assignment]
    with tempfile.TemporaryDirectory() as tmp, FakeModelServer(two_test_kata()) as server:
        repo = make_project(Path(tmp) / "kata")
        env = rgr_env(Path(tmp) / "home", server.url)
        ws = open_workspace(repo, env=env)
        backend = TimedBackend(ClaudeBackend(ws.config.agent_binary, env=env))
        code = run(ws, "add a slugify function", False, None,
                   RunOptions(assume_yes=True, skip_preflight=True), backend=backend)
        assert code == 0 and server.remaining == 0, server.errors
        first: dict[str, int] = {}
        for record in server.requests:
            if record.session_id and "StructuredOutput" in record.tools:
                first.setdefault(record.session_id, record.body_bytes)
    # The baseline run happens before the first phase starts: it is the run phase 0 sees
    # first, outside run_phase; count it out by its position.
    baseline, *in_phase = test_times
    per_phase = [phase_s - agent_s for phase_s, agent_s in
                 zip(phase_times, backend.spent, strict=True)]
    for index, seconds in in_phase:
        per_phase[index] -= seconds
    print(f"phases: {len(phase_times)}; agent sessions: {len(backend.spent)}; test runs "
          f"inside phases: {len(in_phase)} ({sum(s for _, s in in_phase):.2f} s); baseline "
          f"run {baseline[1]:.2f} s")
    print("rgr overhead per phase (ms):", " ".join(f"{o * 1000:.0f}" for o in per_phase))
    median = statistics.median(per_phase)
    print(f"median overhead: {median * 1000:.1f} ms (target < 100 ms)")
    print("first model request per phase (bytes):", " ".join(str(v) for v in first.values()),
          f"(max {max(first.values())}, target <= {16 * 1024})")
    return 0 if median < 0.1 and max(first.values()) <= 16 * 1024 else 1


if __name__ == "__main__":
    sys.exit(main())
