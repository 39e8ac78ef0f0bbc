"""What the first model request of each phase is made of, on a chosen Claude Code release.

Runs the two-test kata of the end-to-end suite through the rgr CLI (the real claude of
that release, the scripted model server keeping every request body, real git and
pytest) and prints, per phase, the size of its first request and the biggest parts of
the largest one: the system prompt, each tool's definition, the messages.

    python bench/request_size.py            # the newest tested release
    python bench/request_size.py pinned     # or an exact version

Target (issue 15): at most 16 KB on every release in the supported range.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from harness import ensure_claude  # noqa: E402
from kata import rgr_env, two_test_kata  # noqa: E402

from rgr.backends.claude_release import NEWEST, PINNED  # noqa: E402
from rgr.demo import kata as _kata  # noqa: E402
from rgr.fake_model import FakeModelServer  # noqa: E402

LIMIT = 16 * 1024


def size(value: object) -> int:
    return len(json.dumps(value, separators=(",", ":")).encode())


def main(argv: list[str]) -> int:
    wanted = argv[0] if argv else "newest"
    version = {"pinned": PINNED, "newest": NEWEST}.get(wanted, wanted)
    claude = ensure_claude(version)
    with tempfile.TemporaryDirectory(prefix="rgr-request-size-") as tmp:
        repo = _kata.make_project(Path(tmp) / "kata", [sys.executable, "-m", "pytest", "-q"],
                                  str(claude))
        with FakeModelServer(two_test_kata(), keep_bodies=True) as server:
            done = subprocess.run([sys.executable, "-m", "rgr", "run", "--yes",
                                   "add a slugify function"], cwd=repo,
                                  env=rgr_env(Path(tmp) / "home", server.url),
                                  capture_output=True, text=True)
            records = list(server.requests)
    if done.returncode != 0:
        print(done.stdout + done.stderr)
        return 1
    first: dict[str, tuple[int, dict[str, object]]] = {}
    for record in records:
        if record.session_id and record.body and "StructuredOutput" in record.tools:
            first.setdefault(record.session_id, (record.body_bytes, record.body))
    sizes = [wire for wire, _ in first.values()]  # the bytes claude sent
    print(f"Claude Code {version}: first request of each of {len(sizes)} phases (bytes): "
          f"{sizes}; largest {max(sizes)} ({max(sizes) / 1024:.1f} KB), limit {LIMIT}")
    print("the largest, by part (compact JSON bytes):")
    _, body = max(first.values(), key=lambda pair: pair[0])
    parts: list[tuple[str, int]] = [(f"system ({len(body.get('system') or [])} block(s))",
                                     size(body.get("system")))]
    for tool in body.get("tools") or []:  # type: ignore[union-attr]
        parts.append((f"tool {tool.get('name')}", size(tool)))
    parts.append((f"messages ({len(body.get('messages') or [])})",  # type: ignore[arg-type]
                  size(body.get("messages"))))
    rest = {k: v for k, v in body.items() if k not in ("system", "tools", "messages")}
    parts.append((f"other fields ({', '.join(sorted(rest))})", size(rest)))
    for name, bytes_ in sorted(parts, key=lambda p: -p[1]):
        print(f"  {bytes_:6d}  {name}")
    return 0 if max(sizes) <= LIMIT else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
