"""Does `rgr verify` agree with each project's own test command? (issue 35, "Done when")

For every project of the corpus (bench/corpus/projects.py): fetch it (cached under
$RGR_CORPUS_CACHE, default ~/.cache/rgr-corpus), build it as its users have it under a
fresh HOME, with rgr installed as pipx installs it (rgr in a venv of its own, only the
`rgr` script on PATH, in ~/.local/bin), then run the project's own test command and
`rgr verify --json`, and print one table row per project: the own count and verdict,
rgr's, whether they agree (same passed count, same verdict) and the time each took.

    python bench/verify_corpus.py [--only NAME[,NAME...]] [--work DIR] [--keep]

Every command's output is kept under the work folder (default: a new temporary folder,
printed first) as <project>.own.log, <project>.root.log and <project>.rgr.json.

**Capabilities.** rgr's sandbox drops every capability, so even uid 0 has none inside.
Run as root, the project's own command keeps root's capabilities, and a test that needs
one (golang.org/x/sys's TestOpenByHandleAt: CAP_DAC_READ_SEARCH) passes there while it
skips in rgr's run and in any non-root user's run. So the own count compared is the
command run as a user without root's capabilities would run it: under `setpriv
--inh-caps=-all --ambient-caps=-all --bounding-set=-all` (util-linux), which keeps uid 0
(the build's files, HOME and caches stay writable, as they would for their owner) and
leaves the command no capability at all, as the sandbox does. Run as another uid
(`setpriv --reuid nobody`, `su`), the command could not write the root-owned build; capsh
needs more words for the same (`--drop=` only empties the bounding set, its inheritable
set needs `--caps=`). As root the script also runs the command with root's capabilities
and prints that count beside (the "as root" column); as another user it runs it once.
Both runs get `GOFLAGS=-count=1`: go test would answer the second from its result cache.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from xml.etree import ElementTree

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.corpus import build
from bench.corpus.projects import PROJECTS, Project

REPO = Path(__file__).resolve().parents[1]
TIMEOUT_S = 1200
#: The project's own command without any capability (see the module's text).
NO_CAPABILITIES = ("setpriv", "--inh-caps=-all", "--ambient-caps=-all",
                   "--bounding-set=-all", "--")


@dataclass(frozen=True)
class Row:
    project: Project
    own_count: int | None
    own_ok: bool
    own_s: float
    rgr_count: int | None
    rgr_ok: bool
    rgr_s: float
    diagnosis: str
    #: The own command run with root's capabilities (None: not run as root).
    root_count: int | None = None
    root_ok: bool | None = None
    #: Java: the own run's passed tests counted once per class and name (Surefire's
    #: reports), where that differs from its count of runs: rgr names a test by its
    #: class and method, so a method run twice under one class name is one test.
    own_distinct: int | None = None

    @property
    def agree(self) -> bool:
        return (self.own_count is not None
                and self.rgr_count in (self.own_count, self.own_distinct)
                and self.own_ok == self.rgr_ok)


def surefire_distinct_passed(project_dir: Path) -> int | None:
    """Passed (class, method) pairs in the Surefire reports under ``project_dir``
    (every module's ``target/surefire-reports``), each counted once; None without
    reports. commons-collections4's BulkTest runs an abstract test's inner class once
    per concrete test, every run reported under the inner class's one name."""
    passed: set[tuple[str, str]] = set()
    failed: set[tuple[str, str]] = set()
    reports = list(project_dir.glob("**/target/surefire-reports/TEST-*.xml"))
    if not reports:
        return None
    for report in reports:
        for case in ElementTree.parse(report).getroot().iter("testcase"):
            key = (case.get("classname", ""), case.get("name", ""))
            bad = any(case.find(tag) is not None
                      for tag in ("failure", "error", "skipped"))
            (failed if bad else passed).add(key)
    return len(passed - failed)


def install_rgr_as_pipx(where: Path) -> Path:
    """rgr in a virtualenv of its own, installed (not editable) from this checkout as
    `pipx install` would; the path of its `rgr` script."""
    venv = where / "venvs" / "rgr"
    if not (venv / "bin" / "rgr").exists():
        subprocess.run([build.base_python(), "-m", "venv", str(venv)], check=True)
        subprocess.run([str(venv / "bin/python"), "-m", "pip", "install", "-q", str(REPO)],
                       check=True)
    else:  # this checkout as it is now, not as a previous run of the script found it
        subprocess.run([str(venv / "bin/python"), "-m", "pip", "install", "-q",
                        "--force-reinstall", "--no-deps", str(REPO)], check=True)
    return venv / "bin" / "rgr"


def link_rgr(home: Path, rgr: Path) -> Path:
    """~/.local/bin holding only the `rgr` script, as pipx leaves it."""
    bin_dir = home / ".local" / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    (bin_dir / "rgr").symlink_to(rgr)
    return bin_dir


def timed(command: list[str], cwd: Path, env: dict[str, str]) -> tuple[int, str, float]:
    start = time.monotonic()
    try:
        done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True,
                              timeout=TIMEOUT_S)
        code, out = done.returncode, done.stdout + "\n" + done.stderr
    except subprocess.TimeoutExpired as e:
        code, out = -1, f"timed out after {TIMEOUT_S}s: {e.stdout!r}"
    return code, out, time.monotonic() - start


def measure(project: Project, work: Path, rgr: Path, root_too: bool = True) -> Row:
    """One project's row. ``root_too``: as root, also run the own command with root's
    capabilities (its count is printed beside; the default test run skips it)."""
    slug = project.name.replace("/", "_").lstrip("@")
    home = work / "homes" / slug
    if home.exists():
        shutil.rmtree(home)
    source = project.fetch(None)
    where = build.build(source, home, project.name, project.version, project.setup)
    env = build.user_env(home, project.ecosystem, project.setup.env,
                         bin_dirs=(link_rgr(home, rgr),))
    # Run twice, go test would answer the second run from its cache (the first run's
    # results, whatever the capabilities): every own run is a real one.
    own_env = {**env, "GOFLAGS": f"{env.get('GOFLAGS', '')} -count=1".strip()}
    root_count, root_ok = None, None
    if root_too and os.geteuid() == 0:
        root_code, root_out, _ = timed(list(project.own_command), where, own_env)
        (work / f"{slug}.root.log").write_text(root_out)
        root_count, root_ok = project.own_count(root_out), root_code == 0
    own = [*NO_CAPABILITIES, *project.own_command] if os.geteuid() == 0 \
        else list(project.own_command)
    code, out, own_s = timed(own, where, own_env)
    distinct = surefire_distinct_passed(where) if project.ecosystem == "java" else None
    (work / f"{slug}.own.log").write_text(out)
    rgr_code, rgr_out, rgr_s = timed(["rgr", "verify", "--json"], where, env)
    (work / f"{slug}.rgr.json").write_text(rgr_out)
    count, ok, diagnosis = None, False, ""
    try:
        # the JSON object first, then rgr's plain lines (which may hold braces: a Ruby
        # block in the command they name)
        report, _end = json.JSONDecoder().raw_decode(rgr_out[rgr_out.index("{"):])
        count, ok = report["tests"]["passed"], bool(report["ok"])
        if report.get("diagnosis"):
            diagnosis = report["diagnosis"]["problem"].splitlines()[0][:120]
    except (ValueError, KeyError, TypeError):
        diagnosis = f"rgr exited {rgr_code}: " + rgr_out.strip().splitlines()[-1][:120] \
            if rgr_out.strip() else f"rgr exited {rgr_code}"
    if (rgr_code == 0) != ok:
        diagnosis += f" (exit {rgr_code} but ok={ok})"
    return Row(project, project.own_count(out), code == 0, own_s, count, ok, rgr_s,
               diagnosis, root_count, root_ok,
               distinct if distinct != project.own_count(out) else None)


def table(rows: list[Row]) -> str:
    lines = ["| project | ecosystem | case | own count | own verdict | as root | rgr count | "
             "rgr verdict | agree | own s | rgr s | rgr's diagnosis |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        root = ("—" if r.root_ok is None else
                f"{r.root_count} {'pass' if r.root_ok else 'FAIL'}")
        lines.append(
            f"| {r.project.name} {r.project.version} | {r.project.ecosystem} | "
            f"{r.project.case} | {r.own_count}"
            f"{'' if r.own_distinct is None else f' ({r.own_distinct} distinct)'} | "
            f"{'pass' if r.own_ok else 'FAIL'} | {root} | "
            f"{r.rgr_count} | {'pass' if r.rgr_ok else 'FAIL'} | "
            f"{'yes' if r.agree else '**no**'} | {r.own_s:.1f} | {r.rgr_s:.1f} | "
            f"{r.diagnosis}{' ' + r.project.note if r.project.note and not r.agree else ''} |")
    agree = sum(r.agree for r in rows)
    lines.append(f"\n{agree} of {len(rows)} agree.")
    return "\n".join(lines)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--only", default="", help="comma-separated project names")
    parser.add_argument("--work", type=Path, default=None)
    args = parser.parse_args()
    chosen = [p for p in PROJECTS if not args.only or p.name in args.only.split(",")]
    work = args.work or Path(tempfile.mkdtemp(prefix="rgr-corpus-"))
    work.mkdir(parents=True, exist_ok=True)
    print(f"work folder: {work}", flush=True)
    rgr = install_rgr_as_pipx(work)
    rows = []
    for project in chosen:
        try:
            row = measure(project, work, rgr)
        except Exception as e:  # one broken build must not hide the others' rows
            print(f"{project.name}: could not be built: {e}", flush=True)
            continue
        rows.append(row)
        print(f"{project.name}: own {row.own_count} {row.own_ok} (as root: {row.root_count} "
              f"{row.root_ok}), rgr {row.rgr_count} "
              f"{row.rgr_ok}, agree={row.agree} ({row.own_s:.0f}s/{row.rgr_s:.0f}s)",
              flush=True)
    print(table(rows))
    return 0 if rows and all(r.agree for r in rows) and len(rows) == len(chosen) else 1


if __name__ == "__main__":
    os.umask(0o022)
    sys.exit(main())
