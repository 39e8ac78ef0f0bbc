"""The hostile suite of least privilege: canaries planted where users keep secrets, in
another project and in the examiner's store under a fake HOME; claude installed in the
common layouts and toolchains kept in HOME; a hunter run inside the real agent and
test-run jails (real bubblewrap) that walks every folder it can and reads every file.
No canary may be read, in any layout, by either kind of sandbox, and the agent CLI of
each layout must still start there.

The layouts are built with a small executable standing for claude (what the jail shows
depends on where the files are and how they link, not on their content); one full
`rgr run` with the real claude and this hunter is tests/e2e/test_hostile_privilege.py.
"""

from __future__ import annotations

import json
import os
import secrets as random_tokens
import shutil
import stat
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from rgr.base.proc import run
from rgr.sandbox import toolchain
from rgr.sandbox.jail import Jail, executable_view, install_root
from rgr.sandbox.policy import SandboxPolicy
from rgr.store import acceptance_store

#: Where users keep secrets, relative to HOME (and the examiner's store, another
#: project's .env): each file holds a token of its own.
CANARIES = (
    ".ssh/id_ed25519", ".aws/credentials", ".config/gh/hosts.yml", ".netrc",
    ".git-credentials", ".npmrc", ".docker/config.json", ".bash_history", ".zsh_history",
    ".local/share/keyrings/login.keyring", ".gnupg/private-keys-v1.d/key.key",
    ".cargo/credentials.toml", ".m2/settings.xml", ".kube/config",
    "projects/other/.env", "projects/other/src/secret.txt", "notes.txt",
    ".local/state/rgr/acceptance/0123456789abcdef/run-1/tests.txt",
)

#: Walks everything it can see (but the system folders, too big and planted nothing),
#: reads every file, and prints the tokens it found (and whether /etc/shadow reads).
HUNTER = r"""
import os, sys
found = set()
def read(path):
    try:
        with open(path, "rb") as handle:
            data = handle.read(1 << 16)
    except OSError:
        return
    for word in data.split():
        if word.startswith(b"CANARY-"):
            found.add(word.decode())
skip = set(os.environ.get("HUNT_SKIP", "").split(":"))
for top in os.listdir("/"):
    if top in ("usr", "proc", "sys", "dev", "bin", "sbin", "lib", "lib64", "lib32"):
        continue
    for folder, dirs, files in os.walk("/" + top):
        dirs[:] = [d for d in dirs if os.path.join(folder, d) not in skip]
        for name in files:
            read(os.path.join(folder, name))
for path in sys.argv[1:]:
    read(path)
try:
    shadow = bool(open("/etc/shadow").read(1))
except OSError:
    shadow = False
print("HUNT " + " ".join(sorted(found)) + (" SHADOW" if shadow else ""))
"""


def _plant(home: Path) -> dict[str, str]:
    tokens = {}
    for rel in CANARIES:
        token = f"CANARY-{rel.replace('/', '_')}-{random_tokens.token_hex(4)}"
        path = home / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{token}\n")
        tokens[rel] = token
    return tokens


def _executable(path: Path, text: str = "#!/bin/sh\necho claude-ok\n") -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(0o755)
    return path


def _link(link: Path, target: str | Path) -> Path:
    link.parent.mkdir(parents=True, exist_ok=True)
    link.symlink_to(target)
    return link


PACKAGE = "lib/node_modules/@anthropic-ai/claude-code"


def npm_local(home: Path) -> Path:
    """README's layout: ``npm install -g --prefix ~/.local``."""
    _executable(home / ".local" / PACKAGE / "bin/claude.exe")
    return _link(home / ".local/bin/claude", f"../{PACKAGE}/bin/claude.exe")


def home_bin_link(home: Path) -> Path:
    """``~/bin/claude`` -> ``~/.npm-global/bin/claude`` -> the package."""
    _executable(home / ".npm-global" / PACKAGE / "bin/claude.exe")
    middle = _link(home / ".npm-global/bin/claude", f"../{PACKAGE}/bin/claude.exe")
    return _link(home / "bin/claude", middle)


def nvm(home: Path) -> Path:
    prefix = home / ".nvm/versions/node/v20.11.0"
    _executable(prefix / PACKAGE / "bin/claude.exe")
    return _link(prefix / "bin/claude", f"../{PACKAGE}/bin/claude.exe")


def volta(home: Path) -> Path:
    """volta's shim in ``~/.volta/bin``, its packages under ``~/.volta/tools``."""
    _executable(home / ".volta/tools/image/packages/@anthropic-ai/claude-code" / PACKAGE
                / "bin/claude.exe")
    _executable(home / ".volta/bin/volta-shim")
    return _link(home / ".volta/bin/claude", "volta-shim")


def native(home: Path) -> Path:
    """The native installer: ``~/.local/bin/claude`` -> a file in ``versions``."""
    _executable(home / ".local/share/claude/versions/2.1.197")
    return _link(home / ".local/bin/claude", home / ".local/share/claude/versions/2.1.197")


def system_wide(home: Path) -> Path:
    """Installed under /usr (a system folder every sandbox shows)."""
    found = shutil.which("true")
    assert found is not None
    return Path(found)


LAYOUTS: dict[str, Callable[[Path], Path]] = {
    "npm ~/.local": npm_local, "~/bin link": home_bin_link, "nvm": nvm, "volta": volta,
    "native installer": native, "system-wide": system_wide}


def _toolchains(home: Path) -> None:
    """rustup and cargo, pyenv and Go kept in HOME, as their installers leave them."""
    _executable(home / ".rustup/toolchains/stable-x86_64-unknown-linux-gnu/bin/cargo")
    (home / ".rustup/settings.toml").write_text('default_toolchain = "stable"\n')
    _executable(home / ".cargo/bin/rustup")
    _link(home / ".cargo/bin/cargo", "rustup")
    (home / ".cargo/registry/index").mkdir(parents=True)
    python = home / ".pyenv/versions/3.12.1"
    _executable(python / "bin/python3.12")
    (python / "lib/python3.12").mkdir(parents=True)
    (python / "lib/python3.12/os.py").write_text("")
    _executable(home / "sdk/go1.22.0/bin/go")
    (home / "go/pkg/mod/cache").mkdir(parents=True)


@pytest.fixture
def machine(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
            ) -> tuple[Path, dict[str, str], Path]:
    """A fake HOME with canaries and toolchains, the repository under work in it."""
    home = tmp_path / "home"
    tokens = _plant(home)
    _toolchains(home)
    repo = home / "projects" / "app"
    repo.mkdir(parents=True)
    (repo / "Cargo.toml").write_text('[package]\nname = "app"\n')
    monkeypatch.setenv("HOME", str(home))
    return home, tokens, repo


def _hunt(jail: Jail, work: Path, tokens: dict[str, str], home: Path,
          claude: Path) -> tuple[list[str], bool, str]:
    (work / "hunter.py").write_text(HUNTER)
    # rgr's own interpreter is shown (and big): its files are no user's secrets.
    env = {"PATH": os.environ["PATH"], "HUNT_SKIP": f"{sys.prefix}:{sys.base_prefix}"}
    done = run([sys.executable, "-I", "-S", str(work / "hunter.py"),
                *(str(home / rel) for rel in tokens)], cwd=work, timeout=120, env=env,
               launcher=jail)
    line = next((x for x in done.stdout.splitlines() if x.startswith("HUNT")), "")
    assert line, done.stdout + done.stderr
    words = line.split()[1:]
    started = run([str(claude)], cwd=work, timeout=60, launcher=jail)
    return ([w for w in words if w.startswith("CANARY-")], "SHADOW" in words,
            started.stdout + started.stderr)


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("kind", ["agent", "test"])
def test_no_canary_is_readable_in_any_layout(machine: tuple[Path, dict[str, str], Path],
                                             tmp_path: Path, layout: str, kind: str) -> None:
    home, tokens, repo = machine
    claude = LAYOUTS[layout](home)
    found = toolchain.detect(repo, {"HOME": str(home), "PATH": os.environ["PATH"]})
    policy = SandboxPolicy(toolchain=found)
    seat = tmp_path / "seat"
    work, own_home, tmp = (seat / n for n in ("work", "home", "tmp"))
    for folder in (work, own_home, tmp):
        folder.mkdir(parents=True)
    cargo = home / ".cargo/bin/cargo"
    if kind == "agent":
        jail = policy.agent_jail(repo_root=repo, work=work, home=own_home, tmp=tmp,
                                 executables=[claude, cargo], forwards=())
    else:
        jail = policy.test_jail(repo_root=repo, checkout=work, home=own_home, tmp=tmp,
                                executables=[cargo])
    read, shadow, started = _hunt(jail, work, tokens, home, claude)
    assert read == [], f"{layout} ({kind}): read {read}\n{jail.wrap(['x'], work)}"
    assert not shadow
    if kind == "agent":
        expected = "" if layout == "system-wide" else "claude-ok"
        assert expected in started, started
    # The writable places are rgr's own user's again once the command has ended.
    assert work.stat().st_uid == os.geteuid()


def test_a_root_only_file_is_unreadable_even_where_it_is_shown(tmp_path: Path) -> None:
    """A folder shown on purpose (``[sandbox] read_paths``) holding a 0600 file of rgr's
    user: inside, the command is not that user when rgr runs as root."""
    shown = tmp_path / "shown"
    shown.mkdir()
    private = shown / "private.txt"
    private.write_text("CANARY-private\n")
    private.chmod(0o600)
    (shown / "public.txt").write_text("public\n")
    work, home, tmp = (tmp_path / n for n in ("work", "home", "tmp"))
    for folder in (work, home, tmp):
        folder.mkdir()
    jail = SandboxPolicy(read_paths=(shown,)).test_jail(
        repo_root=tmp_path / "repo", checkout=work, home=home, tmp=tmp, executables=[])
    done = run(["cat", str(shown / "public.txt"), str(private)], cwd=work, timeout=30,
               launcher=jail)
    assert "public" in done.stdout
    if os.geteuid() == 0:
        assert "CANARY-private" not in done.stdout
        assert "Permission denied" in done.stderr


def test_the_top_of_the_filesystem_holds_only_the_allow_list(tmp_path: Path) -> None:
    work, home, tmp = (tmp_path / n for n in ("work", "home", "tmp"))
    for folder in (work, home, tmp):
        folder.mkdir()
    jail = SandboxPolicy().test_jail(repo_root=tmp_path / "repo", checkout=work,
                                     home=home, tmp=tmp, executables=[])
    script = "import os, json; print(json.dumps({d: os.listdir('/' + d) for d in " \
             "('opt', 'srv', 'var', 'mnt', 'media', 'root', 'home') " \
             "if os.path.isdir('/' + d)}))"
    done = run([sys.executable, "-I", "-S", "-c", script], cwd=work, timeout=30,
               launcher=jail)
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert not {"opt", "srv", "mnt", "media"} & set(seen), seen
    assert seen.get("var", []) in ([], ["tmp"])
    for top in ("root", "home"):
        # empty, or only the way to what is shown (rgr's interpreter, the work folders)
        assert all(not (Path("/" + top) / entry).is_file() for entry in seen.get(top, []))


@pytest.mark.parametrize(("layout", "shown"), [
    ("npm ~/.local", PACKAGE),
    ("~/bin link", f".npm-global/{PACKAGE}"),
    ("native installer", ".local/share/claude/versions/2.1.197"),
])
def test_an_install_is_shown_by_its_own_folder_never_its_prefix(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, layout: str, shown: str) -> None:
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    claude = LAYOUTS[layout](home)
    view = executable_view(claude, home)
    roots = {str(r.relative_to(home)) for r in view.roots}
    expected = shown if layout != "npm ~/.local" else f".local/{PACKAGE}"
    assert roots == {expected}, roots
    assert all(not home.is_relative_to(r) for r in view.roots)


def test_install_root_is_never_home_or_above(tmp_path: Path) -> None:
    home = tmp_path / "home"
    tool = _executable(home / "mytool")
    assert install_root(tool, home) == tool
    assert install_root(home / "bin" / "x", home) == home / "bin" / "x"


def test_the_examiner_store_is_out_of_sight_or_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Checked at each examination: the store lies outside every folder a sandbox of
    the run shows, else rgr refuses to examine, naming the folder and the fix."""
    home = tmp_path / "home"
    monkeypatch.setenv("HOME", str(home))
    store = acceptance_store.state_root({"HOME": str(home)})
    store.mkdir(parents=True)
    claude = npm_local(home)
    assert SandboxPolicy().shown_over(store, [claude]) is None
    widened = SandboxPolicy(read_paths=(home / ".local",))
    assert widened.shown_over(store, [claude]) == home / ".local"
    why = acceptance_store.exposed(store, home / ".local")
    assert "not examined" in why and "fix:" in why


def test_the_note_keeps_a_key_never_the_store_path(tmp_path: Path) -> None:
    env = {"HOME": str(tmp_path / "home")}
    stored = acceptance_store.save(env, tmp_path / "repo.git", "run-1", "def test(): pass\n",
                                   "tests/test_acceptance.py", [("test", "it works")])
    assert str(tmp_path) not in stored.key and not stored.key.startswith("/")
    assert stored.key.endswith("/run-1")


def test_owner_only_entries_of_etc_are_covered() -> None:
    from rgr.sandbox.jail import owner_only, system_binds

    args = system_binds()
    for path in owner_only("/etc"):
        assert path in args
    if os.path.exists("/etc/shadow") and not os.stat("/etc/shadow").st_mode & stat.S_IROTH:
        assert "/etc/shadow" in args
