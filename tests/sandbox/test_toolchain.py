"""The project's toolchain, found with no configuration and shown read-only inside the
sandbox (rgr.sandbox.toolchain): detection on real folders, and what a real bubblewrap
jail then lets a test run do with a real virtualenv."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

from rgr.base.proc import run
from rgr.sandbox.jail import Jail
from rgr.sandbox.policy import SandboxPolicy
from rgr.sandbox.toolchain import DEPENDENCIES_FROM_VAR, detect

PY = sys.executable


def _venv(where: Path) -> Path:
    """A real virtualenv (no pip: fast) with a console script as pip writes them, its
    ``#!`` line naming the venv's own python by absolute path."""
    where.parent.mkdir(parents=True, exist_ok=True)
    done = run([PY, "-m", "venv", "--without-pip", str(where)], cwd=where.parent, timeout=120)
    assert done.returncode == 0, done.describe()
    script = where / "bin" / "say"
    script.write_text(f"#!{where}/bin/python\nimport sys\nfrom sayer import main\n"
                      "sys.exit(main())\n")
    script.chmod(0o755)
    return where


def _site_packages(venv: Path) -> Path:
    return next((venv / "lib").glob("python3*/site-packages"))


@pytest.fixture
def home(tmp_path: Path) -> Path:
    folder = tmp_path / "home"
    folder.mkdir()
    return folder


@pytest.fixture
def project(home: Path) -> Path:
    root = home / "code" / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "sayer.py").write_text("def main():\n    print('from the commit')\n"
                                           "    return 0\n")
    return root


def _env(home: Path, **more: str) -> dict[str, str]:
    return {"HOME": str(home), "PATH": os.environ.get("PATH", "/usr/bin:/bin"), **more}


# -- detection ---------------------------------------------------------------------------


def test_a_virtualenv_in_the_repository_is_mapped_and_put_first_on_path(
        project: Path, home: Path) -> None:
    venv = _venv(project / ".venv")
    found = detect(project, _env(home))
    (dep,) = found.dependency_folders
    assert (dep.path, dep.inside) == (venv, ".venv")
    assert "virtualenv" in dep.why
    # Nobody activated it: its bin folder goes first, at the path the venv recorded.
    assert found.path_prefix == (venv / "bin",)
    assert found.aliases == (project,)
    assert found.path_value("/usr/bin") == f"{venv}/bin{os.pathsep}/usr/bin"


def test_an_activated_virtualenv_is_not_put_on_path_twice(project: Path, home: Path) -> None:
    venv = _venv(project / "env")  # any folder holding a pyvenv.cfg
    found = detect(project, _env(home, VIRTUAL_ENV=str(venv)))
    assert [d.inside for d in found.dependency_folders] == ["env"]
    assert found.path_prefix == ()
    assert found.env["VIRTUAL_ENV"] == str(venv)


def test_an_active_virtualenv_outside_the_repository_is_shown_at_its_path(
        project: Path, home: Path) -> None:
    venv = _venv(home / ".virtualenvs" / "project")
    found = detect(project, _env(home, VIRTUAL_ENV=str(venv)))
    assert venv in found.read_paths
    assert not found.dependency_folders


def test_node_modules_at_the_top_and_in_workspace_packages(project: Path, home: Path) -> None:
    (project / "node_modules" / ".bin").mkdir(parents=True)
    (project / "packages" / "web" / "node_modules").mkdir(parents=True)
    (project / "packages" / "web" / "package.json").write_text("{}")
    (project / "packages" / "docs" / "node_modules").mkdir(parents=True)  # no package.json
    found = detect(project, _env(home))
    assert sorted(d.inside or "" for d in found.dependency_folders) == [
        "node_modules", "packages/web/node_modules"]


def test_vendor_is_shared_only_when_git_ignores_it(project: Path, home: Path) -> None:
    (project / "vendor").mkdir()
    assert not detect(project, _env(home)).dependency_folders
    found = detect(project, _env(home), ignored={"vendor"})
    assert [d.inside for d in found.dependency_folders] == ["vendor"]


def test_toolchain_homes_under_home_and_where_variables_say(project: Path, home: Path,
                                                           tmp_path: Path) -> None:
    for name in (".rustup/toolchains", ".nvm", ".pyenv", "go/pkg/mod", ".m2/repository"):
        (home / name).mkdir(parents=True)
    cargo = tmp_path / "opt-cargo"
    (cargo / "bin").mkdir(parents=True)
    (cargo / "credentials.toml").write_text("token\n")
    (home / ".tool-versions").write_text("python 3.11.7\n")
    found = detect(project, _env(home, CARGO_HOME=str(cargo), RUSTUP_TOOLCHAIN="stable"))
    assert found.env["RUSTUP_HOME"] == str(home / ".rustup")
    assert found.env["CARGO_HOME"] == str(cargo)
    assert found.env["RUSTUP_TOOLCHAIN"] == "stable"  # passed along with its home
    assert found.env["NVM_DIR"] == str(home / ".nvm")
    assert found.env["PYENV_ROOT"] == str(home / ".pyenv")
    assert found.env["GOMODCACHE"] == str(home / "go" / "pkg" / "mod")
    # Of rustup's and cargo's homes, only their tools; of ~/.m2, only the repository.
    assert {home / ".rustup/toolchains", cargo / "bin", home / ".m2/repository",
            home / "go/pkg/mod"} <= set(found.read_paths)
    assert not {home / ".rustup", cargo, home / ".m2"} & set(found.read_paths)
    assert found.home_files == ((home / ".tool-versions", ".tool-versions"),)
    whys = {str(s.path): s.why for s in found.shown}
    assert whys[str(cargo / "bin")] == "cargo's home ($CARGO_HOME): bin"
    assert whys[str(home / ".rustup/toolchains")] == "rustup's home (~/.rustup): toolchains"


def test_hide_paths_and_detect_false_take_things_away(project: Path, home: Path) -> None:
    _venv(project / ".venv")
    (home / ".cargo" / "bin").mkdir(parents=True)
    found = detect(project, _env(home), hide=(home / ".cargo", Path(".venv")))
    assert not found.dependency_folders and "CARGO_HOME" not in found.env
    assert len(found.skipped) == 2 and all("hide_paths" in s for s in found.skipped)
    off = detect(project, _env(home), enabled=False, share=["node_modules"])
    assert off.shown == () and off.env == {} and off.path_prefix == ()
    (project / "node_modules").mkdir()
    off = detect(project, _env(home), enabled=False, share=["node_modules"])
    assert [(d.inside, d.why) for d in off.dependency_folders] == [
        ("node_modules", "[sandbox] share of the repository (node_modules)")]


def test_a_daemon_job_shares_the_dependency_folders_of_its_source_tree(
        project: Path, home: Path, tmp_path: Path) -> None:
    venv = _venv(project / ".venv")
    clone = tmp_path / "jobs" / "1"
    clone.mkdir(parents=True)
    found = detect(clone, _env(home, **{DEPENDENCIES_FROM_VAR: str(project)}))
    (dep,) = found.dependency_folders
    assert (dep.path, dep.inside) == (venv, ".venv")
    # Both paths lead to the working copy inside: the clone's and the one the venv
    # recorded in its scripts.
    assert found.aliases == (clone, project)
    assert found.path_prefix == (clone / ".venv" / "bin",)
    # A relative or missing path is ignored, never created (and with no folder shown,
    # there is nothing to alias).
    for value in ("relative/path", str(tmp_path / "missing")):
        found = detect(clone, _env(home, **{DEPENDENCIES_FROM_VAR: value}))
        assert found.dependency_folders == () and found.aliases == ()
    assert not (tmp_path / "missing").exists()


# -- inside a real jail -------------------------------------------------------------------


def _test_jail(project: Path, home: Path, tmp_path: Path, env: dict[str, str]
               ) -> tuple[Jail, Path, dict[str, str]]:
    """A test run's jail around a checkout of ``project`` made elsewhere, as rgr makes
    pristine checkouts, with the toolchain ``env`` detects."""
    checkout = tmp_path / "shm" / "tree"
    (checkout / "src").mkdir(parents=True)
    (checkout / "src" / "sayer.py").write_text(
        "def main():\n    print('from the checkout')\n    return 0\n")
    sandbox_home, sandbox_tmp = tmp_path / "shm" / "home", tmp_path / "shm" / "tmp"
    sandbox_home.mkdir()
    sandbox_tmp.mkdir()
    policy = SandboxPolicy(toolchain=detect(project, env))
    jail = policy.test_jail(repo_root=project, checkout=checkout, home=sandbox_home,
                            tmp=sandbox_tmp, executables=[Path(PY)])
    inside_env = policy.environment(env, home=sandbox_home, tmp=sandbox_tmp)
    return jail, checkout, inside_env


def test_a_repository_virtualenv_runs_inside_and_imports_the_commit_under_test(
        project: Path, home: Path, tmp_path: Path) -> None:
    venv = _venv(project / ".venv")
    # An editable install, as `pip install -e .` records it: a path into the repository.
    (_site_packages(venv) / "_project.pth").write_text(f"{project / 'src'}\n")
    jail, checkout, env = _test_jail(project, home, tmp_path, _env(home))
    done = run(jail.wrap(["say"], checkout), cwd=checkout, timeout=60, env=env)
    assert done.returncode == 0, done.describe()
    # The editable path leads to the checkout's files, never the user's working tree.
    assert done.stdout.strip() == "from the checkout"
    assert not (checkout / ".venv").is_symlink()


def test_nothing_shown_is_writable_and_the_users_copies_stay_as_they_were(
        project: Path, home: Path, tmp_path: Path) -> None:
    venv = _venv(project / ".venv")
    (project / "node_modules" / "left-pad").mkdir(parents=True)
    (project / "node_modules" / "left-pad" / "index.js").write_text("module.exports = 1\n")
    (home / ".cargo" / "bin").mkdir(parents=True)
    before = _snapshot(project, home)
    jail, checkout, env = _test_jail(project, home, tmp_path, _env(home))
    site = _site_packages(venv)
    targets = [site / "evil.pth", checkout / ".venv" / "evil.pth",
               project / "node_modules" / "left-pad" / "index.js",
               checkout / "node_modules" / "left-pad" / "index.js",
               home / ".cargo" / "bin" / "cargo"]
    for target in targets:
        code = f"open({str(target)!r}, 'w').write('pwned')"
        done = run(jail.wrap([PY, "-c", code], checkout), cwd=checkout, timeout=30, env=env)
        assert done.returncode != 0 and "Read-only file system" in done.stderr, (target,
                                                                               done.stderr)
    assert _snapshot(project, home) == before


def _snapshot(*roots: Path) -> dict[str, bytes]:
    files = {}
    for root in roots:
        for path in sorted(root.rglob("*")):
            if path.is_file() and not path.is_symlink():
                files[str(path)] = path.read_bytes()
    return files


def test_each_ecosystems_caches_are_shown_in_the_registrys_order(
        project: Path, home: Path) -> None:
    """The caches come from each ecosystem's tool_caches (rgr.ecosystems.go.caches,
    rgr.ecosystems.jvm.caches), in rgr.ecosystems.registry's order: Java's Maven and
    Gradle before Go (the start note's record lists them so), each with its variable."""
    for name in (".gradle/caches", "go/pkg/mod", ".m2/repository"):
        (home / name).mkdir(parents=True)
    found = detect(project, _env(home))
    caches = [s.path for s in found.shown
              if s.path in {home / ".m2/repository", home / ".gradle/caches",
                            home / "go/pkg/mod"}]
    assert caches == [home / ".m2/repository", home / ".gradle/caches", home / "go/pkg/mod"]
    assert found.env["GRADLE_RO_DEP_CACHE"] == str(home / ".gradle/caches")
    assert found.env["GOMODCACHE"] == str(home / "go/pkg/mod")
    assert found.env["MAVEN_OPTS"] == f"-Dmaven.repo.local={home / '.m2/repository'}"
    whys = {s.path: s.why for s in found.shown}
    assert whys[home / ".gradle/caches"].startswith("Gradle's dependency cache")


def test_maven_settings_name_a_local_repository_elsewhere(project: Path, home: Path,
                                                         tmp_path: Path) -> None:
    repository = tmp_path / "maven-repository"
    repository.mkdir()
    (home / ".m2").mkdir()
    (home / ".m2" / "settings.xml").write_text(
        f"<settings><localRepository> {repository} </localRepository></settings>")
    found = detect(project, _env(home, MAVEN_OPTS=f"-Duser.home={home}"))
    assert repository in found.read_paths
    # settings.xml (server passwords) is not shown: Maven is told where the repository is
    assert home / ".m2" not in found.read_paths
    assert found.env["MAVEN_OPTS"] == (f"-Duser.home={home} "
                                       f"-Dmaven.repo.local={repository}")


def test_what_is_mapped_inside_the_repository_stays_visible_over_the_alias(
        project: Path, home: Path, tmp_path: Path) -> None:
    """The scratch copy borrows the repository's object store at its own path, which the
    working copy's alias at the repository's path covers: it is shown again on top."""
    objects = project / ".git" / "objects"
    objects.mkdir(parents=True)
    (objects / "marker").write_text("the user's objects")
    (project / ".git" / "rgr").mkdir()  # a folder the working copy's .git lacks
    work, agent_home, agent_tmp = (tmp_path / "shm" / n for n in ("work", "home", "tmp"))
    for folder in (work / ".git" / "objects", agent_home, agent_tmp):
        folder.mkdir(parents=True)
    policy = SandboxPolicy(toolchain=detect(project, _env(home)))
    jail = policy.agent_jail(repo_root=project, work=work, home=agent_home, tmp=agent_tmp,
                             executables=[Path(PY)], forwards=(),
                             shared=((objects, objects), (project / ".git" / "rgr",) * 2))
    code = f"print(open({str(objects / 'marker')!r}).read())"
    done = run(jail.wrap([PY, "-c", code], work), cwd=work, timeout=30)
    assert done.returncode == 0 and done.stdout.strip() == "the user's objects", done.stderr


def test_a_tracked_folder_is_never_an_environment(project: Path, home: Path) -> None:
    """A commit (an agent's, accepted and checked out) that carries a pyvenv.cfg and a
    bin/pytest must not become the test runner on PATH at the next start."""
    planted = project / "tools"
    (planted / "bin").mkdir(parents=True)
    (planted / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (planted / "bin" / "pytest").write_text("#!/bin/sh\necho 99 passed\n")
    assert [d.inside for d in detect(project, _env(home)).dependency_folders] == ["tools"]
    found = detect(project, _env(home), tracked={"tools", "tools/bin"})
    assert found.dependency_folders == () and found.path_prefix == ()
    assert any("holds files git tracks" in s for s in found.skipped)
    # The same in the daemon's tree a job borrows from.
    clone = home / "jobs" / "1"
    clone.mkdir(parents=True)
    borrowed = detect(clone, _env(home, **{DEPENDENCIES_FROM_VAR: str(project)}),
                      origin_tracked={"tools"})
    assert borrowed.dependency_folders == () and borrowed.path_prefix == ()


def test_the_run_reads_what_git_tracks_from_the_repository(project: Path, home: Path) -> None:
    """Through rgr.sandbox.sealer.toolchain_of, as a run asks: git's own index decides."""
    from rgr.sandbox.sealer import toolchain_of
    from rgr.store.workspace import open_workspace
    from tests.conftest import git

    (project / "tools" / "bin").mkdir(parents=True)
    (project / "tools" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (project / "tools" / "bin" / "pytest").write_text("#!/bin/sh\necho 99 passed\n")
    _venv(project / ".venv")
    (project / ".gitignore").write_text(".venv/\n")
    git(project, "init", "-q", "-b", "main")
    git(project, "add", "-A")
    git(project, "-c", "user.name=D", "-c", "user.email=d@e", "commit", "-q", "-m", "x")
    found = toolchain_of(open_workspace(project, env=_env(home)))
    assert [d.inside for d in found.dependency_folders] == [".venv"]
    assert found.path_prefix == (project / ".venv" / "bin",)


def test_no_alias_when_nothing_shown_records_the_repositorys_path(
        project: Path, home: Path, tmp_path: Path) -> None:
    """Without a venv or dependency folder, the repository's path stays an empty hidden
    folder inside, as the sandbox's other hidden places."""
    (home / ".rustup").mkdir()
    assert detect(project, _env(home)).aliases == ()
    venv = _venv(tmp_path / "elsewhere" / "venv")
    assert detect(project, _env(home, VIRTUAL_ENV=str(venv))).aliases == (project,)


# -- only the toolchains of the ecosystems the project uses ------------------------------


PACKAGE = '{"scripts": {"test": "jest"}}\n'


#: What of a home is shown: rustup's and cargo's tools, Maven's repository (never
#: cargo's credentials.toml, Maven's settings.xml).
SHOWN_AS = {".rustup": ".rustup/toolchains", ".cargo": ".cargo/bin", ".m2": ".m2/repository"}


def _homes(home: Path) -> None:
    for name in (".rustup", ".cargo", ".nvm", ".pyenv", "go/pkg/mod", ".m2", ".asdf",
                 ".gradle/caches"):
        (home / SHOWN_AS.get(name, name)).mkdir(parents=True)


@pytest.mark.parametrize("marker, shown, runner", [
    ("package.json", {".nvm"}, "jest"),
    ("pyproject.toml", {".pyenv"}, "pytest"),
    ("go.mod", {"go/pkg/mod"}, "go"),
    ("Cargo.toml", {".rustup", ".cargo"}, "cargo"),
    ("pom.xml", {".m2", ".gradle/caches"}, "maven"),
])
def test_the_sandbox_shows_only_the_toolchains_of_the_ecosystems_used(
        project: Path, home: Path, marker: str, shown: set[str], runner: str) -> None:
    """Maven's ~/.m2 only to a JVM project, Go's module cache only to Go, cargo and
    rustup only to Rust...; version managers every ecosystem may use (asdf) always.
    Each one left out is named, with why."""
    from rgr.ecosystems.registry import ecosystems_used

    _homes(home)
    (project / marker).write_text(PACKAGE if marker == "package.json" else "\n")
    used = ecosystems_used(project, runner)
    found = detect(project, _env(home), ecosystems=used)
    everything = {".rustup", ".cargo", ".nvm", ".pyenv", "go/pkg/mod", ".m2",
                  ".gradle/caches"}
    assert {str(p.relative_to(home)) for p in found.read_paths
            if p.is_relative_to(home)} == {SHOWN_AS.get(n, n) for n in shown} | {".asdf"}
    # (the password database's home may hold a ~/.m2 of its own: only this HOME counts)
    skipped = [line for line in found.skipped if line.startswith(str(home))]
    not_shown = {line.split(":", 1)[0] for line in skipped}
    assert not_shown == {str(home / name) for name in everything - shown}
    for line in skipped:
        assert "the project uses no " in line and "none of its files found here" in line
    for item in found.shown:
        if item.path != home / ".asdf":
            assert ", for the project's " in item.why, item.why


def test_a_project_of_two_ecosystems_gets_both_and_an_unknown_one_every_home(
        project: Path, home: Path) -> None:
    from rgr.ecosystems.registry import ecosystems_used

    _homes(home)
    (project / "pyproject.toml").write_text("\n")
    (project / "package.json").write_text(PACKAGE)
    both = detect(project, _env(home), ecosystems=ecosystems_used(project, "pytest"))
    assert {home / ".pyenv", home / ".nvm"} <= set(both.read_paths)
    assert home / ".m2" not in both.read_paths
    # `make test` in a folder with no ecosystem's files: rgr cannot tell, shows each.
    bare = home / "code" / "bare"
    bare.mkdir(parents=True)
    assert ecosystems_used(bare, "custom") == ()
    every = detect(bare, _env(home), ecosystems=())
    assert {home / ".m2/repository", home / ".nvm", home / "go/pkg/mod"} <= set(
        every.read_paths)
    assert not [line for line in every.skipped if line.startswith(str(home))]
    assert any("no ecosystem was recognised" in s.why for s in every.shown)


def test_doctor_for_a_javascript_project_hides_maven_and_says_why(
        project: Path, home: Path) -> None:
    """Through toolchain_of, as `rgr run`, `rgr verify` and `rgr doctor` ask."""
    from rgr.ecosystems.registry import resolve_test_command
    from rgr.sandbox.sealer import toolchain_of
    from rgr.store.workspace import open_workspace
    from tests.conftest import git

    _homes(home)
    (project / "package.json").write_text('{"scripts": {"test": "node --test"}}\n')
    git(project, "init", "-q", "-b", "main")
    git(project, "add", "-A")
    git(project, "-c", "user.name=D", "-c", "user.email=d@e", "commit", "-q", "-m", "x")
    ws = open_workspace(project, env=_env(home))
    found = toolchain_of(ws, resolve_test_command(ws.config, ws.root))
    assert home / ".nvm" in found.read_paths
    assert home / ".m2" not in found.read_paths and "GOMODCACHE" not in found.env
    assert any(line.startswith(f"{home / '.m2'}: Maven's") and "uses no Java" in line
               for line in found.skipped), found.skipped
