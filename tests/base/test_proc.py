"""rgr.base.proc's light reader (start_output / output), used by the views that answer before
the CLI loads, and run_lines, which hands a run's output on line by line: real child
processes, no mocks."""

from __future__ import annotations

import os
import sys
import time
from pathlib import Path

import pytest

from rgr.base.errors import CommandError
from rgr.base.proc import output, run_lines, start_output


def python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


def gone(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    return False


def test_output_is_the_commands_stdout_in_its_own_session() -> None:
    code = ("import os, sys\nsys.stderr.write('not captured')\n"
            "print(sys.stdin.read() == '', os.getsid(0) == os.getpid())")
    assert output(python(code)) == b"True True\n"  # stdin is empty; a session leader


def test_output_larger_than_a_pipe_is_read_whole() -> None:
    code = "import sys\nfor i in range(40000): sys.stdout.write(f'{i:08d} line\\n')"
    out = output(python(code))
    assert len(out) == 40000 * 14 and out.splitlines()[-1] == b"00039999 line"


def test_the_reader_runs_while_the_caller_works() -> None:
    started = time.monotonic()
    reading = start_output(python("import time; time.sleep(1); print('done')"))
    assert time.monotonic() - started < 0.9  # start_output did not wait for it
    assert reading.result() == b"done\n"


def test_a_failing_command_is_a_command_error() -> None:
    with pytest.raises(CommandError, match="exit code 3"):
        output(python("import sys; print('partial'); sys.exit(3)"))


def test_a_missing_program_is_a_command_error() -> None:
    with pytest.raises(CommandError, match="cannot run 'no-such-program-rgr'"):
        output(["no-such-program-rgr", "log"])


def test_a_timeout_kills_the_whole_group(tmp_path: Path) -> None:
    pid_file = tmp_path / "grandchild"
    code = ("import subprocess, sys, time\n"
            "child = subprocess.Popen([sys.executable, '-c', 'import time; time.sleep(60)'])\n"
            f"open({str(pid_file)!r}, 'w').write(str(child.pid))\n"
            "print('started', flush=True)\ntime.sleep(60)\n")
    started = time.monotonic()
    with pytest.raises(CommandError, match="timed out"):
        output(python(code), timeout=2)
    assert time.monotonic() - started < 10
    grandchild = int(pid_file.read_text())
    deadline = time.monotonic() + 5
    while not gone(grandchild) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert gone(grandchild)


def test_cancel_kills_a_running_reader_and_is_a_no_op_once_reaped() -> None:
    reading = start_output(python("import time; time.sleep(60)"))
    reading.cancel()
    assert gone(reading.pid)
    reading.cancel()  # reaped already: its pid is not signalled again

    done = start_output(python("print('x')"))
    assert done.result() == b"x\n"
    done.cancel()


def test_a_child_does_not_inherit_signals_rgr_was_told_to_ignore(
        tmp_path: Path) -> None:
    # rgr under nohup ignores SIGHUP; a test that ends its own child with SIGHUP (Go's
    # x/sys TestPidfd) would wait forever if the child inherited that.
    import signal

    from rgr.base.proc import run

    code = ("import signal\n"
            "print(*(signal.getsignal(s) != signal.SIG_IGN for s in "
            "(signal.SIGHUP, signal.SIGINT, signal.SIGQUIT)))")
    before = {s: signal.signal(s, signal.SIG_IGN)
              for s in (signal.SIGHUP, signal.SIGINT, signal.SIGQUIT)}
    try:
        done = run(python(code), cwd=tmp_path, timeout=30)
    finally:
        for sig, handler in before.items():
            signal.signal(sig, handler)
    assert done.stdout.split() == ["True", "True", "True"]


# -- proc.run_lines ------------------------------------------------------------------------


def test_run_lines_delivers_each_line_while_the_program_runs(tmp_path: Path) -> None:
    program = ("import sys, time\nprint('one', flush=True)\ntime.sleep(1.0)\n"
               "print('two', flush=True)\nsys.stderr.write('err')\n")
    seen: list[tuple[float, str]] = []
    done = run_lines([sys.executable, "-c", program], cwd=tmp_path, timeout=30,
                     on_line=lambda line: seen.append((time.monotonic(), line)))
    ended = time.monotonic()
    assert [line for _, line in seen] == ["one", "two"]
    assert ended - seen[0][0] >= 0.9  # "one" arrived a second before the end
    assert done.stdout == "one\ntwo\n" and done.stderr == "err" and done.returncode == 0


def test_run_lines_reraises_a_failing_handler_after_the_program_ends(tmp_path: Path) -> None:
    marker = tmp_path / "finished"
    program = f"print('a', flush=True)\nprint('b', flush=True)\nopen({str(marker)!r}, 'w')\n"
    calls: list[str] = []

    def handler(line: str) -> None:
        calls.append(line)
        raise ValueError("display broke")

    with pytest.raises(ValueError, match="display broke"):
        run_lines([sys.executable, "-c", program], cwd=tmp_path, timeout=30, on_line=handler)
    assert calls == ["a"] and marker.exists()


def test_run_lines_timeout_kills_the_program(tmp_path: Path) -> None:
    program = "import time\nprint('started', flush=True)\ntime.sleep(60)\n"
    seen: list[str] = []
    done = run_lines([sys.executable, "-c", program], cwd=tmp_path, timeout=1,
                     on_line=seen.append)
    assert done.timed_out and seen == ["started"]
