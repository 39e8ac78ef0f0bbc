"""The hostile suite of least privilege: canaries planted where users keep secrets, in
another project, in npm's global configuration of each node installation and in the
examiner's store under a fake HOME; each backend's CLI (claude, codex, gemini, opencode) installed
in the common layouts (npm's ``~/.local`` prefix, a ``~/bin`` link, nvm, volta, asdf,
Homebrew on Linux, claude's native installer, system-wide) and toolchains kept in HOME
(rustup, pyenv, Go, sdkman's Java); a hunter run inside the real agent and test-run jails
(real bubblewrap) that walks every folder it can and reads every file. No canary may be
read, in any layout, by either kind of sandbox, and the agent CLI of each layout (found
and shown through its backend's own policy) must still start there.

claude is a small executable standing for it (what the jail shows depends on where the
files are and how they link, not on their content); codex, gemini and opencode are the
pinned packages tests/e2e installs (tests/e2e/node, tests/e2e/opencode), hard-linked
into each layout, and start for real (``--version``). One full `rgr run` with the real
claude and this hunter is tests/e2e/test_hostile_privilege.py.
"""

from __future__ import annotations

import json
import os
import secrets as random_tokens
import shutil
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

import pytest
from harness import ensure_codex, ensure_gemini, ensure_opencode, full_sweep, sweep

from rgr.backends.base import backend_binaries
from rgr.backends.claude import ClaudeBackend
from rgr.backends.codex import CodexBackend
from rgr.backends.gemini import GeminiBackend
from rgr.backends.opencode import OpencodeBackend
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


@dataclass(frozen=True)
class Cli:
    """One backend's CLI as npm installs it: its package, the file its command links
    to, the packages ``npm install -g`` nests inside it, and what ``--version`` says."""

    backend: str
    package: str
    entry: str
    nested: tuple[str, ...] = ()
    says: str = "claude-ok"


CLIS = {
    "claude": Cli("claude", "@anthropic-ai/claude-code", "bin/claude.exe"),
    # npm's launcher (a node script) and the native binary in a platform package
    "codex": Cli("codex", "@openai/codex", "bin/codex.js", ("@openai/codex-linux-x64",),
                 "codex-cli 0.169.0"),
    # one node bundle (``#!/usr/bin/env node``)
    "gemini": Cli("gemini", "@google/gemini-cli", "bundle/gemini.js", (), "0.61.0"),
    # the native executable its install script copied out of the platform package
    "opencode": Cli("opencode", "opencode-ai", "bin/opencode.exe", (), "1.18.33"),
}


def _install(modules: Path, cli: Cli) -> Path:
    """``cli``'s package in the ``node_modules`` folder ``modules`` as ``npm install -g``
    leaves it; the file its command links to. claude is a small stand-in (what is shown
    depends on where files are, not on what they hold); codex and gemini are the pinned
    packages, hard-linked (no copy: the same bytes)."""
    package = modules / cli.package
    if cli.backend == "claude":
        return _executable(package / cli.entry)
    installed = {"codex": ensure_codex, "gemini": ensure_gemini,
                 "opencode": ensure_opencode}[cli.backend]()  # npm ci, once
    pinned = installed.parent.parent  # its node_modules
    _hard_link_tree(pinned / cli.package, package)
    for nested in cli.nested:
        _hard_link_tree(pinned / nested, package / "node_modules" / nested)
    return package / cli.entry


def _hard_link_tree(source: Path, target: Path) -> None:
    shutil.copytree(source, target, symlinks=True, copy_function=os.link)


def _node(prefix: Path) -> Path:
    """node itself in a version manager's ``prefix`` (``<prefix>/bin/node``), with npm's
    global configuration beside it holding a token (``npm config set --global``, ``npm
    login --location=global`` write ``<prefix>/etc/npmrc``)."""
    found = shutil.which("node")
    assert found is not None, "node is needed (the pinned CLIs run on it)"
    node = prefix / "bin" / "node"
    node.parent.mkdir(parents=True, exist_ok=True)
    os.link(os.path.realpath(found), node)
    _global_npmrc(prefix)
    return node


def _global_npmrc(prefix: Path) -> None:
    npmrc = prefix / "etc" / "npmrc"
    npmrc.parent.mkdir(parents=True, exist_ok=True)
    npmrc.write_text(f"//registry.npmjs.org/:_authToken=\n"
                     f"CANARY-global-npmrc-{random_tokens.token_hex(4)}\n")


def npm_local(home: Path, cli: Cli) -> Path:
    """README's layout: ``npm install -g --prefix ~/.local``."""
    _install(home / ".local/lib/node_modules", cli)
    return _link(home / ".local/bin" / cli.backend,
                 f"../lib/node_modules/{cli.package}/{cli.entry}")


def home_bin_link(home: Path, cli: Cli) -> Path:
    """``~/bin/<cli>`` -> ``~/.npm-global/bin/<cli>`` -> the package."""
    _install(home / ".npm-global/lib/node_modules", cli)
    middle = _link(home / ".npm-global/bin" / cli.backend,
                   f"../lib/node_modules/{cli.package}/{cli.entry}")
    return _link(home / "bin" / cli.backend, middle)


def nvm(home: Path, cli: Cli) -> Path:
    """nvm's node and its global packages in ``~/.nvm/versions/node/<v>``."""
    prefix = home / ".nvm/versions/node/v20.11.0"
    _node(prefix)
    _install(prefix / "lib/node_modules", cli)
    return _link(prefix / "bin" / cli.backend, f"../lib/node_modules/{cli.package}/{cli.entry}")


def volta(home: Path, cli: Cli) -> Path:
    """volta's shim in ``~/.volta/bin``, its packages under ``~/.volta/tools``; the shim
    stands in for volta's (which finds the package by the name it was started as)."""
    _node(home / ".volta/tools/image/node/20.11.0")
    image = home / ".volta/tools/image/packages" / cli.package
    entry = _install(image / "lib/node_modules", cli)
    _executable(home / ".volta/bin/volta-shim",
                f'#!/bin/sh\nexec "$(dirname "$0")/../{entry.relative_to(home / ".volta")}"'
                ' "$@"\n')
    return _link(home / ".volta/bin" / cli.backend, "volta-shim")


def asdf(home: Path, cli: Cli) -> Path:
    """asdf's node in ``~/.asdf/installs/nodejs/<v>``, the global package there, and
    asdf's shims (``~/.asdf/shims``, on PATH) that find it through ``ASDF_DATA_DIR``."""
    prefix = home / ".asdf/installs/nodejs/20.11.0"
    _node(prefix)
    _install(prefix / "lib/node_modules", cli)
    _link(prefix / "bin" / cli.backend, f"../lib/node_modules/{cli.package}/{cli.entry}")
    shim = '#!/bin/sh\nexec "${ASDF_DATA_DIR:-$HOME/.asdf}/installs/nodejs/20.11.0/bin/%s" "$@"\n'
    _executable(home / ".asdf/shims/node", shim % "node")
    return _executable(home / ".asdf/shims" / cli.backend, shim % cli.backend)


def homebrew(home: Path, cli: Cli) -> Path:
    """Homebrew on Linux: ``/home/linuxbrew/.linuxbrew`` (here beside the fake HOME),
    node in its ``Cellar`` linked from its ``bin``, the package installed by its npm."""
    prefix = home.parent / "linuxbrew/.linuxbrew"
    _node(prefix / "Cellar/node/22.1.0")
    _link(prefix / "bin/node", "../Cellar/node/22.1.0/bin/node")
    _global_npmrc(prefix)  # Homebrew's npm keeps its global configuration in the prefix
    _install(prefix / "lib/node_modules", cli)
    return _link(prefix / "bin" / cli.backend, f"../lib/node_modules/{cli.package}/{cli.entry}")


def native(home: Path, cli: Cli) -> Path:
    """The native installer: ``~/.local/bin/claude`` -> a file in ``versions``."""
    _executable(home / ".local/share/claude/versions/2.1.197")
    return _link(home / ".local/bin/claude", home / ".local/share/claude/versions/2.1.197")


def system_wide(home: Path, cli: Cli) -> Path:
    """Installed under /usr (a system folder every sandbox shows)."""
    found = shutil.which("true")
    assert found is not None
    return Path(found)


LAYOUTS: dict[str, Callable[[Path, Cli], Path]] = {
    "npm ~/.local": npm_local, "~/bin link": home_bin_link, "nvm": nvm, "volta": volta,
    "asdf": asdf, "homebrew": homebrew, "native installer": native,
    "system-wide": system_wide}
#: Layouts only claude has (its native installer), or that this suite cannot build for
#: a real package (system-wide: /usr is not the suite's to write; every sandbox shows it).
CLAUDE_ONLY = frozenset({"native installer", "system-wide"})
#: The folder of each layout put first on PATH, as its installer asks.
PATH_FIRST = {"~/bin link": "bin", "nvm": ".nvm/versions/node/v20.11.0/bin",
              "volta": ".volta/bin", "asdf": ".asdf/shims",
              "homebrew": "../linuxbrew/.linuxbrew/bin", "npm ~/.local": ".local/bin"}


def _toolchains(home: Path) -> None:
    """rustup and cargo, pyenv, Go and sdkman's Java kept in HOME, as their installers
    leave them."""
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
    java = home / ".sdkman/candidates/java"
    _executable(java / "21.0.2-tem/bin/java", "#!/bin/sh\necho java-ok\n")
    _link(java / "current", "21.0.2-tem")


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


def _hunt(jail: Jail, work: Path, tokens: dict[str, str], home: Path) -> tuple[list[str], bool]:
    (work / "hunter.py").write_text(HUNTER)
    # rgr's own interpreter is shown (and big): its files are no user's secrets.
    env = {"PATH": os.environ["PATH"], "HUNT_SKIP": f"{sys.prefix}:{sys.base_prefix}"}
    done = run([sys.executable, "-I", "-S", str(work / "hunter.py"),
                *(str(home / rel) for rel in tokens)], cwd=work, timeout=120, env=env,
               launcher=jail)
    line = next((x for x in done.stdout.splitlines() if x.startswith("HUNT")), "")
    assert line, done.stdout + done.stderr
    words = line.split()[1:]
    return [w for w in words if w.startswith("CANARY-")], "SHADOW" in words


BACKENDS = {"claude": ClaudeBackend, "codex": CodexBackend, "gemini": GeminiBackend,
            "opencode": OpencodeBackend}
#: (layout, backend, kind): every layout with every backend in the agent's sandbox; the
#: test run's sandbox shows no agent CLI, so once per layout.
#: codex and gemini in every layout run in the full sweep; every run takes them in the
#: README's layout and in nvm's (claude in every layout); opencode, whose 177 MB package
#: only its own tests install (tests/e2e/test_opencode_backend.py), in the full sweep.
OTHER_CLI_SAMPLE = {"npm ~/.local", "nvm"}
CASES = sweep([
    *((layout, backend, "agent") for layout in sorted(LAYOUTS) for backend in sorted(CLIS)
      if backend == "claude" or layout not in CLAUDE_ONLY),
    *((layout, "claude", "test") for layout in sorted(LAYOUTS)),
], lambda case: full_sweep() or case[1] == "claude" or (
    case[0] in OTHER_CLI_SAMPLE and case[1] != "opencode"),
    "tests/sandbox/test_least_privilege.py")


@pytest.mark.parametrize(("layout", "backend", "kind"), CASES)
def test_no_canary_is_readable_in_any_layout(machine: tuple[Path, dict[str, str], Path],
                                             tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                             layout: str, backend: str, kind: str) -> None:
    home, tokens, repo = machine
    LAYOUTS[layout](home, CLIS[backend])
    first = os.path.normpath(home / PATH_FIRST.get(layout, ".local/bin"))
    path = f"{first}:{os.environ['PATH']}"
    monkeypatch.setenv("PATH", path)  # as the user's shell has it
    user_env = {"HOME": str(home), "PATH": path}
    found = toolchain.detect(repo, user_env)
    policy = SandboxPolicy(toolchain=found)
    seat = tmp_path / "seat"
    work, own_home, tmp = (seat / n for n in ("work", "home", "tmp"))
    for folder in (work, own_home, tmp):
        folder.mkdir(parents=True)
    cargo = home / ".cargo/bin/cargo"
    java = home / ".sdkman/candidates/java/current/bin/java"
    # The executables the backend asks the sandbox to show, found as rgr finds them
    # (rgr.sandbox.sealer: backend_binaries on PATH).
    agent = BACKENDS[backend](backend, env=user_env)
    binaries = [Path(p) for p in (shutil.which(n, path=path) for n in backend_binaries(agent))
                if p]
    launcher = Path(os.path.realpath(binaries[0])) if binaries else None
    if backend == "codex" and launcher is not None and launcher.name == "codex.js":
        # npm's node launcher leads to the native codex, which rgr starts itself (no
        # node in the sandbox), wherever npm put the platform package.
        assert agent.binary.endswith("/bin/codex") and "/vendor/" in agent.binary, agent.binary
    if kind == "agent":
        jail = policy.agent_jail(repo_root=repo, work=work, home=own_home, tmp=tmp,
                                 executables=[*binaries, cargo, java], forwards=())
    else:
        jail = policy.test_jail(repo_root=repo, checkout=work, home=own_home, tmp=tmp,
                                executables=[cargo, java])
    read, shadow = _hunt(jail, work, tokens, home)
    assert read == [], f"{layout} ({backend}, {kind}): read {read}\n{jail.wrap(['x'], work)}"
    assert not shadow
    # What the run's tools need still starts: the agent CLI in its sandbox (the real
    # codex and gemini print their version), sdkman's Java in both.
    inside = {"PATH": ":".join([*map(str, found.path_prefix), path]), "HOME": str(own_home),
              **found.env}
    assert "java-ok" in run([str(java)], cwd=work, timeout=60, env=inside,
                            launcher=jail).stdout
    if kind == "agent" and layout != "system-wide":
        assert binaries, f"{backend} not found on {path}"
        started = run([str(binaries[0]), "--version"], cwd=work, timeout=120, env=inside,
                      launcher=jail)
        assert CLIS[backend].says in started.stdout, started.stdout + started.stderr
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
    claude = LAYOUTS[layout](home, CLIS["claude"])
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
    claude = npm_local(home, CLIS["claude"])
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
