"""The one subprocess wrapper: argv only (never a shell), a wall-clock timeout that
kills the whole process group, bounded output capture, and errors that show what ran.

Importing this module costs next to nothing (subprocess, threading and ctypes are
imported by the functions that use them): ``rgr history`` reads its rows through
:func:`start_output` before click is even loaded, and ``tests/test_startup.py`` holds it to
an import budget (test_the_process_wrapper_imports_nothing_heavy).
"""

from __future__ import annotations

import os
import sys
import time

from rgr.base.errors import CommandError

#: typing.TYPE_CHECKING without importing typing (3 ms, a tenth of `rgr history`'s
#: budget): mypy takes any name spelt TYPE_CHECKING as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    import subprocess
    import threading
    from collections.abc import Callable, Iterator, Mapping, Sequence
    from pathlib import Path
    from typing import Protocol

    class Launcher(Protocol):
        """Something that runs a command inside something else (rgr's sandbox): it
        turns the command line into the one that starts the command there."""

        def wrap(self, argv: Sequence[str], cwd: Path | str) -> tuple[str, ...]: ...

        #: Called once the command has ended (the sandbox takes back what it lent).
        def release(self) -> None: ...

#: How much of stdout/stderr is kept in memory per stream. A runaway test runner that
#: prints gigabytes must not take rgr down with it; the head and the tail are what
#: explain a failure.
OUTPUT_LIMIT = 4 * 1024 * 1024


class Completed:
    """A finished command: what ran, its exit code and (bounded) output, how long it
    took. A plain class: a NamedTuple or dataclass would import typing or dataclasses."""

    __slots__ = ("argv", "duration_s", "returncode", "stderr", "stdout", "timed_out")

    def __init__(self, argv: tuple[str, ...], returncode: int, stdout: str, stderr: str,
                 duration_s: float, timed_out: bool = False) -> None:
        self.argv = argv
        self.returncode = returncode
        self.stdout = stdout
        self.stderr = stderr
        self.duration_s = duration_s
        self.timed_out = timed_out

    def __repr__(self) -> str:
        return (f"Completed(argv={self.argv!r}, returncode={self.returncode}, "
                f"duration_s={self.duration_s:.3f}, timed_out={self.timed_out})")

    def describe(self, limit: int = 2000) -> str:
        """A human summary: the command, its exit code, and the tail of its output."""
        status = "timed out" if self.timed_out else f"exit code {self.returncode}"
        parts = [f"$ {' '.join(self.argv)}  ({status}, {self.duration_s:.1f}s)"]
        for name, text in (("stdout", self.stdout), ("stderr", self.stderr)):
            if text.strip():
                parts.append(f"--- {name} ---\n{tail(text, limit)}")
        return "\n".join(parts)


def tail(text: str, limit: int) -> str:
    """The last ``limit`` characters of ``text``, marked when something was cut."""
    if len(text) <= limit:
        return text
    return f"[... {len(text) - limit} characters cut ...]\n{text[-limit:]}"


def bound(text: str, limit: int = OUTPUT_LIMIT) -> str:
    """Head and tail of ``text`` when it is longer than ``limit``."""
    if len(text) <= limit:
        return text
    half = limit // 2
    return f"{text[:half]}\n[... {len(text) - limit} characters cut ...]\n{text[-half:]}"


_PR_SET_PDEATHSIG = 1


def _load_prctl() -> Callable[..., int] | None:
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        prctl: Callable[..., int] = ctypes.CDLL(None, use_errno=True).prctl
        return prctl
    except (OSError, AttributeError):
        return None


#: Resolved in the parent before the first supervised spawn (:func:`_prctl`): the child
#: between fork and exec must not load libraries.
_PRCTL: Callable[..., int] | None = None
_PRCTL_LOADED = False
_SIGKILL = 9  # signal.SIGKILL, read with the rest in the parent (_prctl)
#: (signal.signal, SIG_DFL, the signals a child starts with their default action),
#: read in the parent (_prctl) for the same reason.
_RESET: tuple[Callable[..., object], object, tuple[int, ...]] | None = None


def _prctl() -> Callable[..., int] | None:
    global _PRCTL, _PRCTL_LOADED, _SIGKILL, _RESET
    if not _PRCTL_LOADED:
        import signal

        _PRCTL, _PRCTL_LOADED, _SIGKILL = _load_prctl(), True, signal.SIGKILL
        _RESET = (signal.signal, signal.SIG_DFL,
                  (signal.SIGHUP, signal.SIGINT, signal.SIGQUIT))
    return _PRCTL


def prepare_child() -> None:
    """In the child, before exec: die with rgr (:func:`die_with_parent`), and start with
    the default action for hangup, interrupt and quit.

    An ignored signal stays ignored across exec. rgr started with ``nohup`` (or as a
    background job of a script, whose shell ignores SIGINT and SIGQUIT there) would
    hand that on to every test and agent, and a test that stops a child of its own
    with SIGHUP (golang.org/x/sys's TestPidfd) would wait for it forever. The child is
    in a session of its own, so no terminal's hangup reaches it either way.
    """
    die_with_parent()
    if _RESET is not None:
        set_handler, default, signals = _RESET
        for sig in signals:
            set_handler(sig, default)


def die_with_parent() -> None:
    """In the child, before exec: SIGKILL me when rgr dies.

    Every process rgr starts is in its own process group (so a timeout can kill the
    group), which also means a ``kill -9`` of rgr would leave an agent editing the
    repository with nobody watching. The kernel's parent-death signal closes that gap
    on Linux; ``rgr resume`` sweeps up anything the agent itself had started.
    """
    if _PRCTL is not None:
        _PRCTL(_PR_SET_PDEATHSIG, _SIGKILL)


def kill_group(proc: subprocess.Popen[bytes]) -> None:
    """SIGTERM the process group, then SIGKILL whatever is left after a grace period."""
    import signal
    import subprocess

    for sig, grace in ((signal.SIGTERM, 3.0), (signal.SIGKILL, 5.0)):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            return
        try:
            proc.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            continue


def _spawn(argv: tuple[str, ...], cwd: Path | str, env: Mapping[str, str] | None,
           stdin_data: str | None) -> subprocess.Popen[bytes]:
    """Start ``argv`` in a process group of its own (so a timeout kills its children
    too) that dies with rgr; CommandError when it cannot be started at all."""
    import subprocess

    _prctl()
    try:
        return subprocess.Popen(
            argv,
            cwd=str(cwd),
            env=dict(env) if env is not None else None,
            stdin=subprocess.PIPE if stdin_data is not None else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            start_new_session=True,
            preexec_fn=prepare_child,
        )
    except FileNotFoundError as exc:
        raise CommandError(
            f"cannot run {argv[0]!r}: not found",
            "install it, or correct the command or setting that names it",
        ) from exc
    except PermissionError as exc:
        raise CommandError(f"cannot run {argv[0]!r}: permission denied") from exc


def _launch(argv: tuple[str, ...], cwd: Path | str,
            launcher: Launcher | None) -> tuple[str, ...]:
    return argv if launcher is None else tuple(launcher.wrap(argv, cwd))


def _release(launcher: Launcher | None) -> None:
    if launcher is not None:
        launcher.release()


def run(
    argv: Sequence[str],
    *,
    cwd: Path | str,
    timeout: float | None,
    env: Mapping[str, str] | None = None,
    stdin_data: str | None = None,
    on_start: Callable[[], None] | None = None,
    launcher: Launcher | None = None,
    on_spawn: Callable[[int], None] | None = None,
) -> Completed:
    """Run ``argv`` in its own process group and wait at most ``timeout`` seconds.

    A timeout is not an exception: the group is killed and ``timed_out`` is set, so
    callers decide whether that is a failure of the phase or of rgr. A program that
    cannot be started at all raises CommandError naming it. ``on_start`` is called
    once the process runs (the fault-injection suite crashes rgr there). With a
    ``launcher`` the command runs inside it (``argv`` in the result is still the
    command's own). ``on_spawn`` gets its pid, which is also its process group (the
    daemon kills a job's rgr when another worker has taken the job over).
    """
    import subprocess

    argv = tuple(str(a) for a in argv)
    started = time.monotonic()
    proc = _spawn(_launch(argv, cwd, launcher), cwd, env, stdin_data)
    timed_out = False
    try:
        if on_spawn is not None:
            on_spawn(proc.pid)
        if on_start is not None:
            on_start()
        out, err = proc.communicate(
            input=stdin_data.encode() if stdin_data is not None else None, timeout=timeout
        )
    except subprocess.TimeoutExpired:
        timed_out = True
        kill_group(proc)
        out, err = proc.communicate()
    except BaseException:
        # Ctrl-C or a kill of rgr: never leave an agent or a test runner behind.
        kill_group(proc)
        _release(launcher)
        raise
    _release(launcher)
    return Completed(
        argv=argv,
        returncode=proc.returncode,
        stdout=bound(out.decode("utf-8", "replace")),
        stderr=bound(err.decode("utf-8", "replace")),
        duration_s=time.monotonic() - started,
        timed_out=timed_out,
    )


def _start_threads(*targets: Callable[[], None]) -> list[threading.Thread]:
    """Daemon threads (pipe readers: they must not keep rgr alive), started."""
    import threading

    threads = [threading.Thread(target=target, daemon=True) for target in targets]
    for thread in threads:
        thread.start()
    return threads


def run_lines(
    argv: Sequence[str],
    *,
    cwd: Path | str,
    timeout: float | None,
    on_line: Callable[[str], None],
    env: Mapping[str, str] | None = None,
    stdin_data: str | None = None,
    on_start: Callable[[], None] | None = None,
    launcher: Launcher | None = None,
    on_spawn: Callable[[int], None] | None = None,
) -> Completed:
    """``run``, but ``on_line`` sees each stdout line as soon as the program prints it.

    For programs that report progress as JSON lines (``claude --output-format
    stream-json``). The whole output is still returned (bounded like ``run``'s). If
    ``on_line`` raises, the program is left to finish, later lines are not passed on,
    and the first exception is raised once the program has ended: a broken progress
    display must not leave an agent running unsupervised.
    """
    import subprocess

    argv = tuple(str(a) for a in argv)
    started = time.monotonic()
    proc = _spawn(_launch(argv, cwd, launcher), cwd, env, stdin_data)
    out_lines: list[str] = []
    err_chunks: list[bytes] = []
    failure: list[BaseException] = []

    def read_stdout() -> None:
        assert proc.stdout is not None
        for raw in iter(proc.stdout.readline, b""):
            line = raw.decode("utf-8", "replace")
            out_lines.append(line)
            if not failure:
                try:
                    on_line(line.rstrip("\r\n"))
                except BaseException as exc:  # re-raised in the caller's thread
                    failure.append(exc)

    def read_stderr() -> None:
        assert proc.stderr is not None
        for chunk in iter(lambda: proc.stderr.read(65536), b""):  # type: ignore[union-attr]
            err_chunks.append(chunk)

    readers = _start_threads(read_stdout, read_stderr)
    timed_out = False
    try:
        if on_spawn is not None:
            on_spawn(proc.pid)
        if on_start is not None:
            on_start()
        if proc.stdin is not None:
            try:
                proc.stdin.write((stdin_data or "").encode())
                proc.stdin.close()
            except BrokenPipeError:
                pass
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            kill_group(proc)
            proc.wait()
    except BaseException:
        kill_group(proc)
        _release(launcher)
        raise
    _release(launcher)
    for reader in readers:
        # The pipes close when the last process holding them exits; a grandchild that
        # kept them open must not hang rgr.
        reader.join(timeout=5.0)
    if failure:
        raise failure[0]
    return Completed(
        argv=argv,
        returncode=proc.returncode,
        stdout=bound("".join(out_lines)),
        stderr=bound(b"".join(err_chunks).decode("utf-8", "replace")),
        duration_s=time.monotonic() - started,
        timed_out=timed_out,
    )


#: Pipe size asked for by :func:`stream`: the reader thread needs the GIL to empty the
#: pipe while the consumer holds it for milliseconds at a time; with Linux's default
#: 64 KiB pipe the producer then spends most of its time blocked. 1 MiB is the
#: unprivileged maximum.
STREAM_CHUNK = 1 << 20

#: Chunks read ahead of the consumer, at most: bounds rgr's memory whatever the output.
STREAM_AHEAD = 8


def _grow_pipe(fd: int) -> None:
    import contextlib
    import fcntl

    # Not Linux, or over /proc/sys/fs/pipe-max-size: only slower.
    with contextlib.suppress(OSError):
        fcntl.fcntl(fd, getattr(fcntl, "F_SETPIPE_SZ", 1031), STREAM_CHUNK)


def stream(argv: Sequence[str], *, cwd: Path | str,
           env: Mapping[str, str] | None = None) -> Iterator[bytes]:
    """Yield ``argv``'s stdout in chunks as it is produced, for outputs too large to hold
    (``git log`` over 100,000 notes). A thread keeps the pipe drained, so the program
    and the consumer run on both cores; at most ``STREAM_AHEAD`` chunks wait in memory.

    Raises CommandError (with its stderr) when the program fails. A consumer that stops
    early ends the program (its process group is killed), which is not a failure.
    """
    import queue
    import threading

    argv = tuple(str(a) for a in argv)
    started = time.monotonic()
    proc = _spawn(argv, cwd, env, None)
    assert proc.stdout is not None and proc.stderr is not None
    fd = proc.stdout.fileno()
    _grow_pipe(fd)
    chunks: queue.Queue[bytes | None] = queue.Queue(STREAM_AHEAD)
    stopped = threading.Event()

    def drain() -> None:
        while not stopped.is_set() and (chunk := os.read(fd, STREAM_CHUNK)):
            chunks.put(chunk)
        chunks.put(None)

    def read_stderr() -> None:
        assert proc.stderr is not None
        err_chunks.append(proc.stderr.read())

    err_chunks: list[bytes] = []
    readers = _start_threads(drain, read_stderr)
    finished = False
    try:
        while (chunk := chunks.get()) is not None:
            yield chunk
        finished = True
    finally:
        if not finished:
            stopped.set()
            kill_group(proc)
            while chunks.get() is not None:  # unblock the reader, then let it end
                pass
        for reader in readers:
            reader.join(timeout=5.0)
        proc.wait()
    if proc.returncode != 0:
        result = Completed(argv, proc.returncode, "",
                           bound(b"".join(err_chunks).decode("utf-8", "replace")),
                           time.monotonic() - started)
        raise CommandError(f"{argv[0]} failed\n{result.describe()}")


class Reading:
    """A short read-only command started by :func:`start_output`: it runs while the
    caller does other work (``rgr history`` imports what it draws with while ``git log``
    reads), and :meth:`result` collects its output."""

    __slots__ = ("_deadline", "_fd", "_reaped", "argv", "pid")

    def __init__(self, argv: tuple[str, ...], pid: int, fd: int, deadline: float) -> None:
        self.argv = argv
        self.pid = pid
        self._fd = fd
        self._deadline = deadline
        self._reaped = False

    def result(self) -> bytes:
        """The command's standard output, once it has exited 0. CommandError when it
        failed or outlived its timeout (its process group is killed then)."""
        import select

        chunks = []
        poller = select.poll()
        poller.register(self._fd, select.POLLIN)
        try:
            while True:
                left = self._deadline - time.monotonic()
                if left <= 0:
                    raise CommandError(f"{' '.join(self.argv)} timed out")
                if not poller.poll(left * 1000):
                    continue
                chunk = os.read(self._fd, 1 << 16)
                if not chunk:
                    break
                chunks.append(chunk)
        except BaseException:
            self.cancel()
            raise
        os.close(self._fd)
        _, status = os.waitpid(self.pid, 0)
        self._reaped = True
        code = os.waitstatus_to_exitcode(status)
        if code != 0:
            raise CommandError(f"{' '.join(self.argv)} failed (exit code {code})")
        return b"".join(chunks)

    def cancel(self) -> None:
        """Kill the command's process group and reap it, its output dropped; nothing
        once it has been reaped (its pid may be another process's by then)."""
        if self._reaped:
            return
        self._reaped = True
        # try/except rather than contextlib.suppress: no import on the quick path.
        try:  # noqa: SIM105
            os.killpg(self.pid, _SIGKILL)
        except ProcessLookupError:
            pass
        try:  # noqa: SIM105
            os.close(self._fd)
        except OSError:
            pass
        os.waitpid(self.pid, 0)


def start_output(argv: Sequence[str], *, timeout: float = 60.0) -> Reading:
    """Start a short read-only command (``git -C <repo> log -n 51``) for
    :meth:`Reading.result`, in rgr's working directory (a git command names its
    repository with ``-C``).

    For the views that answer before the rest of rgr is loaded, so lighter than
    :func:`run`: ``os.posix_spawnp`` (no subprocess module, 5 ms to import), the
    command in a session of its own (killed, group and all, at the timeout), stdin and
    stderr /dev/null, nothing decoded. It is not tied to rgr's life: a reader whose
    parent died ends on its next write to the closed pipe (git handles a broken pipe
    itself, so the ignored SIGPIPE it inherits from Python changes nothing). Raises
    CommandError when it cannot be started.
    """
    argv = tuple(str(a) for a in argv)
    read_fd, write_fd = os.pipe()  # both close-on-exec: the child gets only its fd 1
    try:
        pid = os.posix_spawnp(argv[0], argv, os.environ, setsid=True, file_actions=[
            (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
            (os.POSIX_SPAWN_DUP2, write_fd, 1),
            (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
        ])
    except OSError as exc:
        os.close(read_fd)
        raise CommandError(f"cannot run {argv[0]!r}: {exc.strerror or exc}") from exc
    finally:
        os.close(write_fd)
    return Reading(argv, pid, read_fd, time.monotonic() + timeout)


def output(argv: Sequence[str], *, timeout: float = 60.0) -> bytes:
    """:func:`start_output` and its :meth:`Reading.result` in one call."""
    return start_output(argv, timeout=timeout).result()
