"""``rgr demo``: a complete TDD run on a throwaway kata, with the model replayed.

What is real: rgr, the ``claude`` CLI and its tools, git, pytest. What is not: the
model. A scripted server (:mod:`rgr.fake_model`) on 127.0.0.1 plays the slugify kata's
answers, and claude runs with a throwaway HOME, a dummy key and that server as its API:
no account, no network, and the user's ``~/.claude`` and real key are never read.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from rgr.backends import locate
from rgr.backends.claude import INSTALL_COMMAND as CLAUDE_INSTALL
from rgr.backends.claude import ClaudeBackend
from rgr.backends.claude_release import PACKAGE as CLAUDE_PACKAGE
from rgr.backends.claude_release import PINNED
from rgr.backends.codex import INSTALL_COMMAND as CODEX_INSTALL
from rgr.backends.codex import PACKAGE as CODEX_PACKAGE
from rgr.backends.codex import VERIFIED_VERSIONS, CodexBackend
from rgr.base.backend_names import CLAUDE, CODEX
from rgr.base.errors import ExitCode, RgrError
from rgr.base.installed import install_extra
from rgr.base.outcome import Heading, Outcome
from rgr.base.proc import run as run_process
from rgr.commands import history
from rgr.commands import run as run_command
from rgr.demo.env import claude_env, codex_env
from rgr.demo.kata import FEATURE, codex_config, make_project, two_test_kata
from rgr.ecosystems.python import demo_kata
from rgr.fake_model import FakeModelServer
from rgr.fake_model.responses import ResponsesModelServer
from rgr.loop.starting import RunOptions
from rgr.store.gitcli import argv
from rgr.store.workspace import open_workspace

if TYPE_CHECKING:
    from rgr.base.outcome import Say

#: The Claude Code release the replay was recorded against: the e2e suite's pinned one.
TESTED_CLAUDE = PINNED

INSTALL_CLAUDE = (
    f"install Claude Code (needs Node.js 18+): `{CLAUDE_INSTALL}` (no root needed; rgr finds "
    f"it in ~/.local/bin; as root `npm install -g {CLAUDE_PACKAGE}@{TESTED_CLAUDE}` works "
    "too); or pass the binary with --claude PATH. No account or login is needed for the demo"
)


#: The Codex version the replay was verified with (tests/e2e/node/package.json).
TESTED_CODEX = VERIFIED_VERSIONS[0]

INSTALL_CODEX = (
    f"install the Codex CLI (needs Node.js 18+): `{CODEX_INSTALL}` (no root needed; rgr "
    f"finds it in ~/.local/bin; as root `npm install -g {CODEX_PACKAGE}@{TESTED_CODEX}` "
    "works too); or pass the binary with --codex PATH. No account or key is needed for "
    "the demo"
)


class DemoError(RgrError):
    """The demo cannot start or went off its script."""

    category = "demo"


class DemoStopped(DemoError):
    """Ctrl-C during the demo's replay: said as such (exit 130), with why `rgr resume`
    cannot go on with it."""

    exit_code = ExitCode.INTERRUPTED


def find_claude(claude: str | None) -> str:
    return find_binary(CLAUDE, claude, "Claude Code", INSTALL_CLAUDE)


def find_binary(name: str, given: str | None, product: str, install: str) -> str:
    if given is not None:
        found = shutil.which(given) if "/" not in given else (
            given if Path(given).is_file() else None)
        if found is None:
            raise DemoError(f"no {product} binary at {given!r}", install)
        return str(Path(found).resolve()) if "/" in given else found
    # The same places `rgr run` looks (rgr.backends.locate): PATH, ~/.local/bin, npm's
    # global prefix.
    found = locate.find_cli(name, os.environ)
    if found is None:
        raise DemoError(
            f"rgr demo drives the real `{name}` CLI ({product}), and "
            f"{locate.searched(name, os.environ)}", install)
    return found


def find_test_command() -> list[str]:
    """The kata's test command (rgr.ecosystems.python.demo_kata), or why there is none."""
    found = demo_kata.test_command()
    if found is None:
        raise DemoError(
            f"the demo's kata is tested with {demo_kata.RUNNER}, which is not installed",
            f"`{install_extra('demo')}`, or put a {demo_kata.RUNNER} on PATH",
        )
    return found


def _directory(given: Path | None) -> Path:
    if given is None:
        return Path(tempfile.mkdtemp(prefix="rgr-demo-"))
    if given.exists() and any(given.iterdir()):
        raise DemoError(f"{given} is not empty", "pass a new or empty directory to --dir")
    given.mkdir(parents=True, exist_ok=True)
    return given.resolve()


def run(directory: Path | None, claude: str | None, backend: str, codex: str | None,
        say: Say) -> Outcome[None]:
    """The replay through ``backend``'s CLI (one of REPLAYS, which the registry marks
    with ``demo``); ``claude`` / ``codex``: its binary, when given. A start that fails
    before the kata exists (the CLI does not answer, say) removes the folder it made.
    A narrated replay: each step is said (``say``) before it runs."""
    made = directory is None
    where = Path(tempfile.mkdtemp(prefix="rgr-demo-")) if directory is None else directory
    try:
        return Outcome(exit_code=REPLAYS[backend](where, claude if backend == CLAUDE else codex,
                                                  say))
    except (RgrError, KeyboardInterrupt):
        if made and not (where / "kata").exists():
            shutil.rmtree(where, ignore_errors=True)
        raise


def run_claude(directory: Path | None, claude: str | None, say: Say) -> int:
    """The replay through the real ``claude`` CLI and the Messages API server."""
    binary = find_claude(claude)
    test_command = find_test_command()
    where = _directory(directory)
    kata = where / "kata"
    home = where / "claude-home"
    say(Heading("rgr demo", ": a complete TDD run on a small kata, in about a minute."))
    say(Heading(
        "The model is a REPLAY", ": a scripted local server (rgr.fake_model on "
        "127.0.0.1) plays recorded answers of the slugify kata. Everything else is real: "
        f"the claude CLI ({binary}) and its tools, git, {demo_kata.RUNNER}, and every check rgr "
        "makes. No account, no API key, no network; nothing is charged (the costs shown "
        "are what claude computes for the replayed tokens). claude runs with a throwaway "
        f"HOME ({home}), so your ~/.claude and your key are never read."))
    say(f"  directory     {where}")
    with FakeModelServer(two_test_kata()) as server:
        env = claude_env(home, server.url, {"PYTHONDONTWRITEBYTECODE": "1"})
        version = ClaudeBackend(binary, env=env).version()
        say(f"  claude        {version}"
            + ("" if version.startswith(TESTED_CLAUDE) else
               f" (the replay was recorded with {TESTED_CLAUDE}; another version may "
               "go off script)"))
        make_project(kata, test_command, binary)
        code = _replay(say, kata, env, server, "",
                       f"the replay was recorded with claude {TESTED_CLAUDE}: "
                       f"`npm install -g @anthropic-ai/claude-code@{TESTED_CLAUDE}`")
    green = _git(kata, "log", "--format=%H", "--grep=^feat:", "-n1").strip()
    say(f"\nEvery phase left a JSON git note. The last GREEN phase's:\n"
        f"$ git notes --ref=tdd-handoffs show {green[:8]}")
    say(_git(kata, "notes", "--ref=tdd-handoffs", "show", green).rstrip())
    say("\n$ rgr history")
    for item in history.run(open_workspace(kata, env=env), False, None).text:
        say(item)
    me = os.path.abspath(sys.argv[0]) if Path(sys.argv[0]).name == "rgr" else "rgr"
    say(Heading("\nThat was a replay.",
                f" The kata stays in {kata}: `cd {kata}` and try `{me} show HEAD~2`, "
                f"`{me} report`, `{me} status`, `git log --notes=tdd-handoffs`."))
    say(f"Remove it with `rm -rf {where}`. For real work: "
        "`cd /path/to/your/repo && rgr run \"<feature>\"` (needs claude logged in).")
    return code


def run_codex(directory: Path | None, codex: str | None, say: Say) -> int:
    """The same replay through the real ``codex`` CLI and the Responses API server."""
    binary = find_binary(CODEX, codex, "OpenAI Codex", INSTALL_CODEX)
    test_command = find_test_command()
    where = _directory(directory)
    kata = where / "kata"
    home = where / "codex-home"
    say(Heading("rgr demo --backend codex", ": a complete TDD run on a small kata."))
    say(Heading(
        "The model is a REPLAY", ": a scripted local server "
        "(rgr.fake_model.responses on 127.0.0.1, the Responses API) plays recorded answers "
        f"of the slugify kata. Everything else is real: the codex CLI ({binary}) and "
        f"its tools, git, {demo_kata.RUNNER}, and every check rgr makes. No account, no API "
        "key, no "
        "network; codex reports tokens, not cost, so no cost is shown. Each codex session "
        "gets a throwaway CODEX_HOME: your ~/.codex and your key are never read."))
    say(f"  directory     {where}")
    with ResponsesModelServer(two_test_kata()) as server:
        env = codex_env(home, server.url, {"PYTHONDONTWRITEBYTECODE": "1"})
        version = CodexBackend(binary, env=env).version()
        say(f"  codex         {version}")
        make_project(kata, test_command, binary, extra_config=codex_config(binary))
        code = _replay(say, kata, env, server, "--backend codex ",
                       f"the replay was verified with codex {TESTED_CODEX}: "
                       f"`npm install -g @openai/codex@{TESTED_CODEX}`")
    say("\n$ rgr history")
    for item in history.run(open_workspace(kata, env=env), False, None).text:
        say(item)
    say(Heading("\nThat was a replay.",
                f" The kata stays in {kata}; remove it with `rm -rf {where}`. For real "
                "work: `rgr run --backend codex \"<feature>\"` with CODEX_API_KEY set."))
    return code


def _replay(say: Say, kata: Path, env: dict[str, str], server: FakeModelServer,
            flags: str, off_script_hint: str) -> int:
    """``rgr run`` on the kata against ``server``; DemoError if it went off script."""
    say(f"  kata          {kata} (a Python project with no tests yet, on main)")
    say(f"\n$ rgr run --yes {flags}{FEATURE!r}")
    ws = open_workspace(kata, env=env)
    try:
        code = run_command.run(ws, FEATURE, False, None, RunOptions(assume_yes=True),
                               say).exit_code
    except KeyboardInterrupt:
        raise DemoStopped(
            f"the demo was stopped before its run completed; the kata stays in {kata}",
            "a demo cannot be resumed: its model was the replay server, which stopped "
            "with it, and `rgr resume` in the kata would ask the real API, where the "
            "demo's agent has no login; run `rgr demo` again for a new replay") from None
    errors, remaining = server.errors, server.remaining
    if errors or remaining:
        raise DemoError(
            "the replay went off its script: "
            + ("; ".join(errors[:3]) if errors else f"{remaining} session(s) never ran"),
            off_script_hint)
    return code


def _git(cwd: Path, *args: str) -> str:
    done = run_process(argv(*args), cwd=cwd, timeout=60)
    if done.returncode != 0:
        raise RgrError(f"git {' '.join(args)} failed in the demo's kata: {done.describe()}")
    return done.stdout


#: The replay of each backend the registry marks with ``demo`` (a test checks they agree).
REPLAYS: dict[str, Callable[[Path | None, str | None, Say], int]] = {
    CLAUDE: run_claude, CODEX: run_codex}
