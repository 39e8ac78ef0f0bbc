"""Does `rgr verify` agree with each project's own test command? (issue 35, "Done when")

For every project of the corpus (bench/corpus/projects.py): fetch it (cached under
$RGR_CORPUS_CACHE, default ~/.cache/rgr-corpus), build it as its users have it under a
fresh HOME, with rgr installed as pipx installs it (rgr in a venv of its own, only the
`rgr` script on PATH, in ~/.local/bin), then run the project's own test command and
`rgr verify --json`, and print one table row per project: the own count and verdict,
rgr's, whether they agree (same passed count, same verdict) and the time each took.

    python bench/verify_corpus.py [--only NAME[,NAME...]] [--work DIR] [--keep]

Every command's output is kept under the work folder (default: a new temporary folder,
printed first) as <project>.own.log and <project>.rgr.json.
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

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.corpus import build
from bench.corpus.projects import PROJECTS, Project

REPO = Path(__file__).resolve().parents[1]
TIMEOUT_S = 1200


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

    @property
    def agree(self) -> bool:
        return (self.own_count is not None and self.own_count == self.rgr_count
                and self.own_ok == self.rgr_ok)


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


def measure(project: Project, work: Path, rgr: Path) -> Row:
    slug = project.name.replace("/", "_").lstrip("@")
    home = work / "homes" / slug
    if home.exists():
        shutil.rmtree(home)
    source = project.fetch(None)
    where = build.build(source, home, project.name, project.version, project.setup)
    env = build.user_env(home, project.ecosystem, project.setup.env,
                         bin_dirs=(link_rgr(home, rgr),))
    code, out, own_s = timed(list(project.own_command), where, env)
    (work / f"{slug}.own.log").write_text(out)
    rgr_code, rgr_out, rgr_s = timed(["rgr", "verify", "--json"], where, env)
    (work / f"{slug}.rgr.json").write_text(rgr_out)
    count, ok, diagnosis = None, False, ""
    try:
        report = json.loads(rgr_out[:rgr_out.rindex("}") + 1])
        count, ok = report["tests"]["passed"], bool(report["ok"])
        if report.get("diagnosis"):
            diagnosis = report["diagnosis"]["problem"].splitlines()[0][:120]
    except (ValueError, KeyError, TypeError):
        diagnosis = f"rgr exited {rgr_code}: " + rgr_out.strip().splitlines()[-1][:120] \
            if rgr_out.strip() else f"rgr exited {rgr_code}"
    if (rgr_code == 0) != ok:
        diagnosis += f" (exit {rgr_code} but ok={ok})"
    return Row(project, project.own_count(out), code == 0, own_s, count, ok, rgr_s,
               diagnosis)


def table(rows: list[Row]) -> str:
    lines = ["| project | ecosystem | case | own count | own verdict | rgr count | "
             "rgr verdict | agree | own s | rgr s | rgr's diagnosis |",
             "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in rows:
        lines.append(
            f"| {r.project.name} {r.project.version} | {r.project.ecosystem} | "
            f"{r.project.case} | {r.own_count} | {'pass' if r.own_ok else 'FAIL'} | "
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
        print(f"{project.name}: own {row.own_count} {row.own_ok}, rgr {row.rgr_count} "
              f"{row.rgr_ok}, agree={row.agree} ({row.own_s:.0f}s/{row.rgr_s:.0f}s)",
              flush=True)
    print(table(rows))
    return 0 if rows and all(r.agree for r in rows) and len(rows) == len(chosen) else 1


if __name__ == "__main__":
    os.umask(0o022)
    sys.exit(main())
