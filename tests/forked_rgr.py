"""``rgr`` as a real process of its own, forked from a server that imported it once.

``python -m rgr`` spends 0.4-0.8 s of CPU importing the CLI before it answers a usage
error; a file of tests that each run rgr once or twice (tests/loop/test_rough_edges.py)
paid that some forty times. The server imports ``rgr.cli`` once; for each call it forks
a child that takes the call's working directory, environment and standard streams (stdin
/dev/null, stdout and stderr to files) and runs ``rgr.launch.main``, the console
script's entry, as ``python -m rgr`` would; its exit status is the call's code. The
server is one thread (it only reads requests and forks), so a fork is safe.

What a forked child cannot show, and stays with real starts: anything rgr reads when it is
imported (the server is started with the same clean environment), and ``rgr --version``
and ``--help``, which ``rgr.launch`` answers before importing the CLI
(tests/test_startup.py).
"""

from __future__ import annotations

import atexit
import contextlib
import json
import os
import select
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path
from typing import NoReturn

#: The commands whose modules the server imports (rgr/commands/).
COMMANDS = ("run", "refactor", "verify", "status", "history", "show", "report",
            "repair_notes")


class ForkedRgr:
    """A running server; call it as the ``run_rgr`` fixture is called."""

    def __init__(self, env: Mapping[str, str]) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.forked_rgr"], env=dict(env), text=True,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            cwd=Path(__file__).resolve().parent.parent)
        self.scratch = Path(tempfile.mkdtemp(prefix="forked-rgr-"))

    def __call__(self, args: list[str], cwd: Path, env: Mapping[str, str],
                 timeout: float = 60) -> tuple[int, str, str]:
        out, err = self.scratch / "stdout", self.scratch / "stderr"
        request = {"args": args, "cwd": str(cwd), "env": dict(env),
                   "stdout": str(out), "stderr": str(err)}
        assert self.proc.stdin is not None and self.proc.stdout is not None
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        # One line answers each request, so nothing is buffered ahead of this select.
        if not select.select([self.proc.stdout], [], [], timeout)[0]:
            self.proc.kill()
            raise AssertionError(f"rgr {args} did not finish within {timeout}s")
        answer = self.proc.stdout.readline()
        assert answer, "the forked-rgr server died"
        return (int(answer), out.read_text(encoding="utf-8"),
                err.read_text(encoding="utf-8"))

    def close(self) -> None:
        if self.proc.stdin is not None:
            self.proc.stdin.close()
        self.proc.wait(timeout=30)
        for path in self.scratch.iterdir():
            path.unlink()
        self.scratch.rmdir()


def _child(request: dict[str, object]) -> NoReturn:
    """In the forked child: become ``python -m rgr <args>`` and exit with its code."""
    code = 1
    try:
        os.chdir(str(request["cwd"]))
        env = request["env"]
        assert isinstance(env, dict)
        os.environ.clear()
        os.environ.update(env)
        for fd, path, flags in ((0, os.devnull, os.O_RDONLY),
                                (1, request["stdout"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC),
                                (2, request["stderr"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC)):
            opened = os.open(str(path), flags, 0o600)
            os.dup2(opened, fd)
            os.close(opened)
        sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.stdout = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
        sys.stderr = open(2, "w", encoding="utf-8", errors="backslashreplace",  # noqa: SIM115
                          closefd=False)
        args = request["args"]
        assert isinstance(args, list)
        from rgr.launch import main

        sys.argv = ["rgr", *args]
        try:
            main([str(a) for a in args])
            code = 0
        except SystemExit as exc:
            if exc.code is None or isinstance(exc.code, int):
                code = exc.code or 0
            else:  # as the interpreter does: the message on stderr, status 1
                print(exc.code, file=sys.stderr)
                code = 1
    except BaseException:
        import traceback

        traceback.print_exc()
    # What the interpreter's exit does that anyone could see: atexit hooks (weakref
    # finalizers among them; the server registers none of its own), then the streams
    # flushed. Freeing every module and object is left out: 0.2 s a call.
    with contextlib.suppress(BaseException):
        atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        with contextlib.suppress(Exception):  # a stream gone: nothing to keep
            stream.flush()
    os._exit(code)


def serve() -> None:
    # Imports the children make after their chdir must not look in the repository
    # under test.
    sys.path[0] = os.path.abspath(sys.path[0] or os.curdir)
    # What a start of each of the commands below imports (rgr.cli imports a command's
    # module only when that command runs): the children find it imported.
    import importlib

    import rgr.launch  # noqa: F401
    for command in COMMANDS:
        importlib.import_module(f"rgr.commands.{command}")

    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            _child(request)
        _, status = os.waitpid(pid, 0)
        sys.stdout.write(f"{os.waitstatus_to_exitcode(status)}\n")
        sys.stdout.flush()


if __name__ == "__main__":
    serve()
