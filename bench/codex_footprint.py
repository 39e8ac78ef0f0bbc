"""Request footprint on Codex: the first model request of each phase, as the server
receives it, with rgr's settings and with Codex's defaults.

Runs the two-test kata through ``rgr run --backend codex`` (real codex from
tests/e2e/node, the scripted Responses API server, real git and pytest) and records the
first request of every phase. Then, for each phase, sends the same system prompt and
prompt through a plain ``codex exec`` with Codex's own defaults (its built-in
instructions, every default tool and feature, AGENTS.md discovery, skills), the system
prompt prepended to the prompt since that is the only place a default run can take it.

    python bench/codex_footprint.py

Prints bytes per phase and the part of each request that is instructions, tools and
input; the ratio default / rgr is what the settings save on every turn of every phase.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import uuid
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "e2e"))

from harness import ensure_codex  # noqa: E402
from kata import make_project, rgr, rgr_env, two_test_kata  # noqa: E402

from rgr.fake_model import SessionScript, structured  # noqa: E402
from rgr.fake_model.responses import (  # noqa: E402
    FAKE_MODEL,
    ResponsesModelServer,
    first_user_text,
    system_text,
)

ROLES = {"PLANNER": "PLAN", "TESTER": "RED", "IMPLEMENTER": "GREEN", "REFACTORER": "REFACTOR"}


def parts(body: dict[str, Any]) -> dict[str, int]:
    """Bytes of the request that are instructions (developer messages), tools, input."""
    developer = sum(len(json.dumps(i)) for i in body.get("input") or []
                    if isinstance(i, dict) and i.get("role") in ("developer", "system"))
    inputs = len(json.dumps(body.get("input") or [])) - developer
    return {"instructions": developer + len(str(body.get("instructions") or "")),
            "tools": len(json.dumps(body.get("tools") or [])), "input": inputs}


def agent_prompt(body: dict[str, Any]) -> str:
    """The agent's system prompt: rgr's first developer message."""
    for item in body.get("input") or []:
        if isinstance(item, dict) and item.get("role") == "developer":
            return "\n".join(str(c.get("text", "")) for c in item.get("content") or [])
    return ""


def phase_of(system: str) -> str:
    for word, phase in ROLES.items():
        if f"You are the {word}" in system:
            return phase
    return "?"


def default_codex_request(codex: Path, system: str, prompt: str, work: Path) -> bytes:
    """The first request of a plain ``codex exec`` given the same texts."""
    repo = work / f"repo-{uuid.uuid4().hex[:6]}"
    subprocess.run(["git", "init", "-q", str(repo)], check=True)
    home = work / f"codex-home-{uuid.uuid4().hex[:6]}"
    home.mkdir()
    with ResponsesModelServer([SessionScript([structured({"summary": "x"})])],
                              keep_bodies=True) as server:
        provider = (f'{{name="x", base_url="{server.url}/v1", env_key="CODEX_API_KEY", '
                    'wire_api="responses", supports_websockets=false}')
        schema = work / "schema.json"
        schema.write_text('{"type":"object","properties":{"summary":{"type":"string"}},'
                          '"required":["summary"],"additionalProperties":false}')
        env = {"PATH": os.environ["PATH"], "HOME": str(home), "CODEX_HOME": str(home),
               "CODEX_API_KEY": "sk-fake"}
        subprocess.run([str(codex), "exec", "--json", "--ephemeral", "--skip-git-repo-check",
                        "-s", "danger-full-access", "-m", FAKE_MODEL, "--output-schema",
                        str(schema), "-c", 'model_provider="x"', "-c",
                        f"model_providers.x={provider}", "-C", str(repo), "-"],
                       input=f"{system}\n\n{prompt}", env=env, capture_output=True,
                       text=True, timeout=120, check=False)
        return server.bodies[0]


def main() -> int:
    codex = ensure_codex()
    work = Path(tempfile.mkdtemp(prefix="rgr-bench-codex-"))
    try:
        repo = make_project(work / "kata", "codex")
        with ResponsesModelServer(two_test_kata(), keep_bodies=True) as server:
            done = rgr(["run", "--yes", "--skip-preflight", "slugify"], repo,
                       rgr_env(work / "home", server.url, "codex"))
            if done.returncode != 0:
                print(done.stdout, done.stderr)
                return 1
            bodies = server.bodies
        firsts: dict[str, bytes] = {}
        for body in bodies:
            session = json.loads(body).get("prompt_cache_key")  # codex's thread id
            if session and session not in firsts:
                firsts[session] = body
        version = subprocess.run([str(codex), "--version"], capture_output=True,
                                 text=True).stdout.strip()
        print(f"{version}, model {FAKE_MODEL}; first request of each phase (bytes)")
        print(f"{'phase':<10}{'rgr':>8}{'default':>9}{'ratio':>7}   "
              f"rgr: instructions/tools/input   default: instructions/tools/input")
        totals = [0, 0]
        for body_bytes in firsts.values():
            body = json.loads(body_bytes)
            system, prompt = system_text(body), first_user_text(body)
            default_bytes = default_codex_request(codex, agent_prompt(body), prompt, work)
            default = json.loads(default_bytes)
            ours, theirs = parts(body), parts(default)
            totals[0] += len(body_bytes)
            totals[1] += len(default_bytes)
            print(f"{phase_of(system):<10}{len(body_bytes):>8}{len(default_bytes):>9}"
                  f"{len(default_bytes) / len(body_bytes):>6.1f}x   "
                  f"{ours['instructions']}/{ours['tools']}/{ours['input']:<18}"
                  f"{theirs['instructions']}/{theirs['tools']}/{theirs['input']}")
        print(f"{'total':<10}{totals[0]:>8}{totals[1]:>9}{totals[1] / totals[0]:>6.1f}x")
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
