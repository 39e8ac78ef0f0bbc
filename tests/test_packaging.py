"""The wheel carries the agents/ and prompts/ folders and the `rgr` console script, and
works on its own."""

from __future__ import annotations

import configparser
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, clean_env


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("dist")
    proc = subprocess.run(
        [sys.executable, "-m", "build", "--wheel", "--no-isolation", "--outdir", str(out),
         str(REPO_ROOT)],
        capture_output=True, text=True, timeout=120,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    wheels = list(out.glob("rgr-*.whl"))
    assert len(wheels) == 1, wheels
    return wheels[0]


def _names(wheel: Path) -> list[str]:
    with zipfile.ZipFile(wheel) as archive:
        return archive.namelist()


@pytest.mark.parametrize("folder", ["agents", "prompts"])
def test_the_wheel_ships_the_top_level_folder_inside_the_package(wheel: Path, folder: str) -> None:
    source = sorted(
        p.relative_to(REPO_ROOT / folder).as_posix()
        for p in (REPO_ROOT / folder).rglob("*") if p.is_file()
    )
    assert source, f"{folder}/ is empty in the source tree"
    shipped = sorted(
        n.removeprefix(f"rgr/_data/{folder}/") for n in _names(wheel)
        if n.startswith(f"rgr/_data/{folder}/") and not n.endswith("/")
    )
    assert shipped, f"no rgr/_data/{folder}/ files in {wheel.name}"
    assert shipped == source


def test_the_wheel_declares_the_console_script_and_runnable_module(wheel: Path) -> None:
    names = _names(wheel)
    # launch answers --version/--help from help_text, which is checked against cli.py
    assert {"rgr/__main__.py", "rgr/cli.py", "rgr/launch.py", "rgr/help_text.py"} <= set(names)
    # the files a language copies into a run or starts by path are not Python modules
    assert {"rgr/ecosystems/javascript/node_reporter.mjs",
            "rgr/ecosystems/jvm/RgrJUnit4Direct.java",
            "rgr/ecosystems/python/unittest_reporter.py",
            "rgr/ecosystems/python/pytest_own_outcomes.py",
            "rgr/ecosystems/ruby/rgr_plugin.rb"} <= set(names)
    entry_points = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    with zipfile.ZipFile(wheel) as archive:
        parser = configparser.ConfigParser()
        parser.read_string(archive.read(entry_points).decode())
    assert parser["console_scripts"]["rgr"].strip() == "rgr.launch:main"
    assert not any(n.startswith(("tests/", "bench/")) for n in names)


def test_the_unpacked_wheel_runs_on_its_own(wheel: Path, tmp_path: Path) -> None:
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    env = clean_env(tmp_path / "home", {"PYTHONPATH": str(site)})
    code = (
        "import rgr, pathlib; "
        "pkg = pathlib.Path(rgr.__file__).parent; "
        "print(pkg); "
        "print(sorted(p.name for p in (pkg / '_data' / 'agents').iterdir()))"
    )
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    where, agents = proc.stdout.splitlines()
    assert Path(where) == site / "rgr"  # the wheel's copy, not the editable source
    assert agents != "[]"
    proc = subprocess.run([sys.executable, "-m", "rgr", "--help"], cwd=tmp_path, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    for command in ("status", "history", "rollback", "repair-notes", "show", "report", "demo"):
        assert command in proc.stdout


def test_the_wheel_ships_what_the_demo_needs(wheel: Path, tmp_path: Path) -> None:
    names = _names(wheel)
    for module in ("rgr/demo/__init__.py", "rgr/demo/kata.py", "rgr/demo/env.py",
                   "rgr/commands/demo.py", "rgr/fake_model/server.py",
                   "rgr/fake_model/script.py"):
        assert module in names, module
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as archive:
        archive.extractall(site)
    env = clean_env(tmp_path / "home", {"PYTHONPATH": str(site)})
    code = ("import rgr.demo.kata as k, rgr.fake_model as f; print(k.__file__); "
            "print(len(k.two_test_kata())); f.FakeModelServer(k.two_test_kata()).start().stop()")
    proc = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, env=env,
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    where, scripts = proc.stdout.split()
    assert Path(where).is_relative_to(site) and scripts == "9"


def test_the_wheel_ships_rgr_serves_templates_and_static_files(wheel: Path) -> None:
    """`rgr serve` reads its templates and static files as package data: every one in the
    source tree is in the wheel, and the web extra is declared."""
    web = REPO_ROOT / "rgr" / "web"
    source = sorted(p.relative_to(REPO_ROOT).as_posix() for folder in ("templates", "static")
                    for p in (web / folder).rglob("*") if p.is_file())
    assert len(source) >= 8, source
    assert set(source) <= set(_names(wheel))
    metadata = next(n for n in _names(wheel) if n.endswith(".dist-info/METADATA"))
    with zipfile.ZipFile(wheel) as archive:
        text = archive.read(metadata).decode()
    assert "Provides-Extra: web" in text
    assert any(line.startswith("Requires-Dist: starlette") and "extra == 'web'" in line
               for line in text.splitlines()), text
