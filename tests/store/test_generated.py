"""Files the project's own build generated and git ignores (a hatch-vcs version file,
compiled translations, extension modules built in place, generated code) are copied
read-only from the user's working tree into every pristine checkout and scratch copy;
secrets, local state and anything outside the project never are. Real git repositories,
real pytest in the real sandbox, the real `rgr verify` and `rgr doctor`."""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
from pathlib import Path

import pygit2
import pytest

from rgr.base.config import load_config
from rgr.base.errors import ConfigError
from rgr.ecosystems.registry import resolve_test_command
from rgr.sandbox.sealer import Sealer
from rgr.sandbox.toolchain import Shown, Toolchain
from rgr.store import generated
from rgr.store.generated import GeneratedFile
from rgr.store.workspace import open_workspace
from tests.conftest import clean_env, git
from tests.fake_backend import FakeBackend

PY = sys.executable
PYPROJECT = """[build-system]
requires = ["hatchling", "hatch-vcs"]
build-backend = "hatchling.build"

[project]
name = "verso"
dynamic = ["version"]

[tool.hatch.version]
source = "vcs"

[tool.hatch.build.hooks.vcs]
version-file = "src/verso/_version.py"

[tool.pytest.ini_options]
pythonpath = ["src"]
"""
#: The project's own test: the package imports its generated version file; the other
#: generated files are there and read-only; the secrets beside them are not.
TEST = """import os
import stat
from pathlib import Path

from verso import __version__

PACKAGE = Path(__file__).parent.parent / "src" / "verso"


def test_the_version_is_the_generated_one():
    assert __version__ == "1.2.3"


def test_generated_files_are_there_read_only():
    for name in ("_speedups.cpython-311-x86_64-linux-gnu.so",
                 "locale/de/LC_MESSAGES/verso.mo", "schema_pb2.py"):
        mode = (PACKAGE / name).stat().st_mode
        assert stat.S_IMODE(mode) & 0o222 == 0, name


def test_secrets_and_escapes_are_not():
    for name in (".env", "server.pem", "_escape.so", "linked"):
        assert not os.path.lexists(PACKAGE / name), name
"""
MO = bytes.fromhex("de120495") + bytes(range(40))
SO = b"\x7fELF" + bytes(range(256)) * 4


def make_project(root: Path, outside: Path, config: str = "") -> Path:
    """A hatch-vcs-style project as its users have it after `pip install -e .`: the
    version file, a compiled translation and an extension module present and ignored,
    generated code under an ignored folder, a .env and a key beside them, and links to
    a folder outside the project."""
    package = root / "src" / "verso"
    (package / "locale" / "de" / "LC_MESSAGES").mkdir(parents=True)
    (root / "tests").mkdir()
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / ".gitignore").write_text("src/verso/_version.py\n__pycache__/\n*.so\n.env\n"
                                     "*.pem\nlinked\nsrc/verso/schema_pb2.py\n")
    (package / "__init__.py").write_text("from verso._version import __version__\n")
    (package / "locale" / "de" / "LC_MESSAGES" / "verso.po").write_text(
        'msgid "hello"\nmsgstr "hallo"\n')
    (root / "tests" / "test_verso.py").write_text(TEST)
    (root / "tdd.toml").write_text(
        f'test_command = "{PY} -m pytest -q -p no:cacheprovider -p no:randomly"\n' + config)
    git(root, "init", "-q", "-b", "main")
    git(root, "config", "user.name", "Dev")
    git(root, "config", "user.email", "dev@example.com")
    git(root, "add", "-A")
    git(root, "commit", "-q", "-m", "a hatch-vcs project")
    # What the build wrote (after the commit: none of it is tracked).
    (package / "_version.py").write_text('__version__ = "1.2.3"\n')
    (package / "locale" / "de" / "LC_MESSAGES" / "verso.mo").write_bytes(MO)
    (package / "_speedups.cpython-311-x86_64-linux-gnu.so").write_bytes(SO)
    (package / "schema_pb2.py").write_text("DESCRIPTOR = None\n")
    # The .mo is ignored only by the user's own exclude file, not by .gitignore.
    (root / ".git" / "info" / "exclude").write_text("*.mo\n")
    # Secrets and escapes beside them.
    (package / ".env").write_text("API_TOKEN=secret\n")
    (package / "server.pem").write_text("-----BEGIN PRIVATE KEY-----\n")
    outside.mkdir(parents=True, exist_ok=True)
    (outside / "secret.so").write_bytes(b"outside")
    (outside / "stolen.py").write_text("SECRET = 1\n")
    (package / "_escape.so").symlink_to(outside / "secret.so")
    (package / "linked").symlink_to(outside, target_is_directory=True)
    return root


def rgr(args: list[str], cwd: Path, env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run([PY, "-m", "rgr", *args], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=300, stdin=subprocess.DEVNULL)


SHOW_CODE = 'show_generated = ["src/verso/*_pb2.py", "src/verso/linked/**"]\n'
FOUND = {
    "src/verso/_version.py":
        "the version file pyproject.toml names ([tool.hatch.build.hooks.vcs] version-file)",
    "src/verso/_speedups.cpython-311-x86_64-linux-gnu.so":
        "an extension module built in place in a tracked package",
    "src/verso/locale/de/LC_MESSAGES/verso.mo": "a compiled translation next to a tracked .po",
    "src/verso/schema_pb2.py": "[sandbox] show_generated 'src/verso/*_pb2.py'",
}


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One project for the tests that only read it (each rgr call runs its suite)."""
    base = tmp_path_factory.mktemp("generated")
    return make_project(base / "verso", base / "elsewhere", f"[sandbox]\n{SHOW_CODE}")


def test_the_sealed_baseline_of_a_hatch_vcs_project_passes(project: Path) -> None:
    env = clean_env(project.parent / "home")
    done = rgr(["verify", "--json"], project, env)
    assert done.returncode == 0, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["tests"]["passed"] == 3 and report["tests"]["errors"] == 0, report
    assert report["sandbox"]["enabled"] is True
    # Nothing of the user's tree was touched: the files are still theirs, writable.
    assert os.access(project / "src" / "verso" / "_version.py", os.W_OK)
    assert git(project, "status", "--porcelain") == ""


def test_doctor_lists_each_generated_file_and_why(project: Path) -> None:
    env = clean_env(project.parent / "home")
    done = rgr(["doctor", "--json"], project, env)
    assert done.returncode == 0, done.stdout + done.stderr
    listed = {item["path"]: item["why"] for item in json.loads(done.stdout)["generated"]}
    assert listed == FOUND
    done = rgr(["doctor"], project, env)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "copied read-only into every checkout from your working tree" in done.stdout
    for path, why in FOUND.items():
        assert f"  {path}  {why}" in done.stdout, done.stdout


def test_without_its_version_file_the_same_suite_cannot_load(tmp_path: Path) -> None:
    """The control: hidden by hide_generated, the version file is missing from the
    checkout, and the suite fails to load exactly as it did before rgr copied it."""
    root = make_project(tmp_path / "verso", tmp_path / "elsewhere",
                        'agent_binary = "/bin/echo"\n'  # the baseline runs before any agent
                        '[sandbox]\nhide_generated = ["**/_version.py"]\n')
    env = clean_env(tmp_path / "home")
    done = rgr(["verify", "--json"], root, env)
    assert done.returncode == 1, done.stdout + done.stderr
    report = json.loads(done.stdout)
    assert report["tests"]["passed"] == 0 and report["tests"]["errors"] >= 1, report
    # `rgr run` refuses the red baseline and names the likely cause and the setting.
    done = rgr(["run", "add a thing", "--yes", "--skip-preflight"], root, env)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "not green before rgr starts: could not load tests/test_verso.py" in done.stderr
    # on evidence: the load error names the module, an ignored file of the user's tree
    assert ("the failures name src/verso/_version.py, in your working tree but ignored "
            "by git, so missing from the checkout") in done.stderr, done.stderr
    assert '[sandbox] show_generated = ["src/verso/_version.py"]' in done.stderr
    # The run log names what every checkout gets.
    assert ("checkouts get read-only copies of "
            "src/verso/_speedups.cpython-311-x86_64-linux-gnu.so, "
            "src/verso/locale/de/LC_MESSAGES/verso.mo (generated, ignored by git") \
        in done.stdout, done.stdout


def test_secrets_state_and_escapes_are_never_found(tmp_path: Path) -> None:
    root = make_project(tmp_path / "verso", tmp_path / "elsewhere")
    venv = root / "src" / "verso" / "env"  # a virtualenv under a name DENIED does not know
    (venv / "lib").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (venv / "lib" / "native.so").write_bytes(SO)
    (root / ".gitignore").write_text((root / ".gitignore").read_text() + "env/\n")
    # A link that stays inside the project but leads into that virtualenv.
    (root / "src" / "verso" / "_inside.so").symlink_to(venv / "lib" / "native.so")
    repo = pygit2.Repository(str(root))
    show = ["src/verso/.env", "**/*.pem", "src/verso/linked/**", "src/verso/_escape.so",
            "src/verso/env/**", "**/*_pb2.py"]
    found = {f.path for f in generated.find(repo, root, show=show)}
    assert found == set(FOUND)
    hidden = generated.find(repo, root, show=show, hide=["**/*.mo", "src/verso/*_pb2.py"])
    assert {f.path for f in hidden} == set(FOUND) - {
        "src/verso/locale/de/LC_MESSAGES/verso.mo", "src/verso/schema_pb2.py"}


@pytest.mark.parametrize("path", [
    ".env", "src/.env.local", "deploy/prod.env", "certs/server.pem", "tls.key", "id_rsa",
    "keys/id_ed25519.pub", "keys/id_ecdsa_sk", "id_dsa", "cert.p12", "credentials.json",
    ".netrc", ".pypirc", ".npmrc",
    ".aws/config", ".gcloud/key.json", ".docker/config.json", ".venv/lib/x.so",
    "node_modules/x/a.node", "pkg/__pycache__/m.cpython-311.pyc", ".pytest_cache/v",
])
def test_the_deny_list_covers(path: str) -> None:
    assert generated.denied(path)


@pytest.mark.parametrize("path", ["src/pkg/_version.py", "locale/de/LC_MESSAGES/a.mo",
                                  # humanize 4.17.0's Indonesian translation (issue 35)
                                  "src/humanize/locale/id_ID/LC_MESSAGES/humanize.mo",
                                  "pkg/_c.cpython-311-x86_64-linux-gnu.so",
                                  ".docker/Dockerfile", "src/environment.py"])
def test_the_deny_list_lets_build_output_through(path: str) -> None:
    assert not generated.denied(path)


def test_a_checkout_is_never_written_through_its_own_links(tmp_path: Path) -> None:
    """A commit (an agent's) may make the package folder a link out of the checkout, or
    track a file of the same name: the copy neither writes outside nor overwrites."""
    root = make_project(tmp_path / "verso", tmp_path / "elsewhere")
    checkout, target = tmp_path / "checkout", tmp_path / "target"
    (checkout / "src").mkdir(parents=True)
    target.mkdir()
    (checkout / "src" / "verso").symlink_to(target, target_is_directory=True)
    files = [GeneratedFile("src/verso/_version.py", "test")]
    assert generated.copy_into(root, files, checkout) == []
    assert list(target.iterdir()) == []
    (checkout / "src" / "verso").unlink()
    (checkout / "src" / "verso").mkdir()
    (checkout / "src" / "verso" / "_version.py").write_text("committed\n")
    assert generated.copy_into(root, files, checkout) == []
    assert (checkout / "src" / "verso" / "_version.py").read_text() == "committed\n"


def test_build_output_goes_with_a_removed_package_and_generated_folders_are_made(
        tmp_path: Path) -> None:
    root = make_project(tmp_path / "verso", tmp_path / "elsewhere")
    (root / "gen" / "api").mkdir(parents=True)  # generated code in an ignored folder
    (root / "gen" / "api" / "client.py").write_text("CLIENT = 1\n")
    (root / ".git" / "info" / "exclude").write_text("*.mo\ngen/\n")
    files = generated.find(pygit2.Repository(str(root)), root, show=["gen/**/*.py"])
    assert {f.path for f in files} == {*FOUND, "gen/api/client.py"} - {
        "src/verso/schema_pb2.py"}
    checkout = tmp_path / "checkout"  # a commit that removed src/verso
    (checkout / "tests").mkdir(parents=True)
    assert generated.copy_into(root, files, checkout) == ["gen/api/client.py"]
    assert not (checkout / "src").exists()
    assert (checkout / "gen" / "api" / "client.py").read_text() == "CLIENT = 1\n"


def test_each_attempt_copies_the_current_version_file(tmp_path: Path) -> None:
    """The agent's scratch copy and every pristine checkout get the files, read-only;
    a version file the build wrote again between attempts is the new one at the next."""
    root = make_project(tmp_path / "verso", tmp_path / "elsewhere", f"[sandbox]\n{SHOW_CODE}")
    ws = open_workspace(root, env=clean_env(tmp_path / "home"))
    backend = FakeBackend()
    sealer = Sealer(ws, backend, resolve_test_command(ws.config, ws.root), None)
    base = ws.repo.head.peel(pygit2.Commit)
    version = Path("src/verso/_version.py")
    with sealer.seat(base, "first") as seat:
        copied = seat.cwd / version
        assert copied.read_text() == '__version__ = "1.2.3"\n'
        assert stat.S_IMODE(copied.stat().st_mode) == 0o444
        assert (seat.cwd / "src/verso/locale/de/LC_MESSAGES/verso.mo").read_bytes() == MO
        assert not (seat.cwd / "src/verso/.env").exists()
        # Copied in, never the agent's to commit (the .mo is ignored by the user's
        # own exclude file, which the scratch copy does not have).
        assert git(seat.cwd, "status", "--porcelain", "--ignored=no") == ""
    (root / version).write_text('__version__ = "1.2.4.dev1"\n')
    with sealer.seat(base, "second") as seat:
        assert (seat.cwd / version).read_text() == '__version__ = "1.2.4.dev1"\n'
    with sealer.checkout(base, "verify") as (tree, _confinement, _env):
        assert (tree / version).read_text() == '__version__ = "1.2.4.dev1"\n'
        assert stat.S_IMODE((tree / version).stat().st_mode) == 0o444
        assert not (tree / "src/verso/_escape.so").exists()
    report = sealer.run_tests(base)
    assert report.passed == 2 and report.failed == 1, report.output_excerpt
    # Unsandboxed here, so the test that wants the exact version fails on 1.2.4.dev1.
    assert any("the_version_is_the_generated_one" in t for t in report.failing_ids)


@pytest.mark.parametrize("value, problem", [
    ('["../secrets/*"]', "leads out of the project ('..')"),
    ('["/etc/passwd"]', "is not relative to the project"),
    ('["~/.ssh/*"]', "is not relative to the project"),
    ('["src/[abc.py"]', "has an unclosed '['"),
    ('[""]', "is empty"),
])
def test_bad_generated_globs_are_a_clear_config_error(tmp_path: Path, value: str,
                                                      problem: str) -> None:
    (tmp_path / "tdd.toml").write_text(f"[sandbox]\nshow_generated = {value}\n")
    with pytest.raises(ConfigError) as raised:
        load_config(tmp_path, env={})
    message = str(raised.value)
    assert "[sandbox].show_generated must be a list of globs of files inside the project" \
        in message, message
    assert problem in message, message


def test_a_bad_glob_stops_the_command_with_the_setting_named(tmp_path: Path) -> None:
    root = make_project(tmp_path / "verso", tmp_path / "elsewhere",
                        '[sandbox]\nhide_generated = ["../x"]\n')
    done = rgr(["verify"], root, clean_env(tmp_path / "home"))
    assert done.returncode == 1, done.stdout + done.stderr
    assert "[sandbox].hide_generated" in done.stderr and "'..'" in done.stderr, done.stderr


def test_a_daemon_job_clone_gets_the_generated_files_of_the_tree_it_came_from(
        tmp_path: Path) -> None:
    """A job's clone (rgr.daemon.workcopy) never ran the build: its checkouts get the
    files the daemon's working tree generated, as `rgr run`'s do, and its sealed
    baseline is the user's green suite."""
    from rgr.sandbox.toolchain import DEPENDENCIES_FROM_VAR

    root = make_project(tmp_path / "verso", tmp_path / "elsewhere", f"[sandbox]\n{SHOW_CODE}")
    clone = tmp_path / "jobs" / "1"
    git(tmp_path, "clone", "-q", str(root), str(clone))
    assert not (clone / "src/verso/_version.py").exists()
    env = clean_env(tmp_path / "home", {DEPENDENCIES_FROM_VAR: str(root)})
    ws = open_workspace(clone, env=env)
    sealer = Sealer(ws, FakeBackend(), resolve_test_command(ws.config, ws.root), None)
    assert {f.path for f in sealer.generated_files()} == set(FOUND)
    base = ws.repo.head.peel(pygit2.Commit)
    with sealer.seat(base, "job") as seat:
        assert (seat.cwd / "src/verso/_version.py").read_text() == '__version__ = "1.2.3"\n'
    report = sealer.run_tests(base)
    assert report.passed == 3 and report.all_passed, report.output_excerpt
    # Without the daemon's working tree to borrow from, the same clone cannot load.
    alone = open_workspace(clone, env=clean_env(tmp_path / "home2"))
    bare = Sealer(alone, FakeBackend(), resolve_test_command(alone.config, alone.root), None)
    assert bare.generated_files() == []
    assert not bare.run_tests(base).all_passed


def test_a_dependency_folder_the_user_ignores_only_locally_is_not_the_agents_to_commit(
        tmp_path: Path) -> None:
    """A .venv ignored by the clone's own info/exclude (as rgr run's message advises)
    and shown inside the scratch copy stays out of an agent's ``git add -A``: the copy
    has no info/exclude of the user's, so rgr names the folder in its own."""
    root = make_project(tmp_path / "verso", tmp_path / "elsewhere")
    with (root / ".git" / "info" / "exclude").open("a") as exclude:
        exclude.write(".venv/\n")
    (root / ".venv").mkdir()
    ws = open_workspace(root, env=clean_env(tmp_path / "home"))
    shown = Toolchain(shown=(Shown(root / ".venv", "a virtualenv of the repository (.venv)",
                                   inside=".venv"),))
    sealer = Sealer(ws, FakeBackend(), resolve_test_command(ws.config, ws.root), None,
                    toolchain=shown)
    with sealer.seat(ws.repo.head.peel(pygit2.Commit), "agent") as seat:
        # the user's .venv, linked in (a bind of it under the sandbox)
        assert (seat.cwd / ".venv").exists()
        git(seat.cwd, "add", "-A")
        assert git(seat.cwd, "status", "--porcelain") == ""


def ignoring_project(tmp_path: Path) -> tuple[pygit2.Repository, Path]:
    """A Maven-like and Python-like tree with ignored files of each kind."""
    root = tmp_path / "proj"
    files = {".gitignore": "target/\n_version.py\n*.dat\n.env\n",
             "src/test/resources/pages/home.html": "<p>tracked</p>",
             "src/verso/__init__.py": "", "src/verso/_version.py": "v = 1\n",
             "fixtures/big.dat": "ignored data", "target/surefire/report.dat": "run output",
             ".env": "TOKEN=x\n"}
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    return pygit2.Repository(str(root)), root


@pytest.mark.parametrize(("failure", "named"), [
    # a data file the sources lack (jsoup's excluded pages): nothing to point at
    ("java.io.FileNotFoundException: /dev/shm/rgr-0/ab/verify-x/src/test/resources/"
     "htmltests/baidu-cn-home.html (No such file or directory)", []),
    # an ignored file of the user's tree, named by its path in the checkout
    ("OSError: /dev/shm/rgr-0/ab/verify-x/fixtures/big.dat: No such file", ["fixtures/big.dat"]),
    # a module a load error could not find, which the user's tree has, ignored
    ("ModuleNotFoundError: No module named 'verso._version'", ["src/verso/_version.py"]),
    # tracked files, the run's own output and secrets are no evidence
    ("at src/test/resources/pages/home.html and target/surefire/report.dat, .env", []),
])
def test_only_an_ignored_file_the_failures_name_is_evidence_of_a_generated_file(
        tmp_path: Path, failure: str, named: list[str]) -> None:
    repo, root = ignoring_project(tmp_path)
    assert generated.ignored_files_named(repo, root, failure) == named


@pytest.mark.parametrize(("failure", "named"), [
    # Node's load error names the module without its suffix, relative to the importer
    ("Error: Cannot find module './gen/parser'\nRequire stack:", ["gen/parser.js"]),
    # Python's names a module that is an extension built in place
    ("ModuleNotFoundError: No module named 'pkg._fast'",
     ["src/pkg/_fast.cpython-311-x86_64-linux-gnu.so"]),
])
def test_each_languages_load_error_names_the_ignored_module_it_could_not_find(
        tmp_path: Path, failure: str, named: list[str]) -> None:
    root = tmp_path / "proj"
    files = {".gitignore": "gen/\n*.so\n", "src/pkg/__init__.py": "", "index.js": "",
             "gen/parser.js": "module.exports = 1\n",
             "src/pkg/_fast.cpython-311-x86_64-linux-gnu.so": "ELF"}
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    git(root, "init", "-q", "-b", "main")
    git(root, "add", "-A")
    assert generated.ignored_files_named(pygit2.Repository(str(root)), root, failure) == named
