"""Where users keep secrets: never shown to a sandbox, even inside a folder a tool needs.

One rule, in one place (rgr.sandbox.policy applies it to every jail): after everything a
sandbox shows is bound, each of these found inside it is covered again, a folder with an
empty one, a file with an empty file. A toolchain home under HOME (``~/.cargo``) is
shown for its tools, never for the ``credentials.toml`` beside them; a folder named in
``[sandbox] read_paths`` that holds ``.npmrc`` shows everything but the token; a node
installation shown for its ``node`` (nvm's ``versions/node/<v>``) everything but npm's
global configuration beside it (``etc/npmrc``).
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

#: Under HOME: the folders and files that hold keys, tokens, passwords and histories.
HOME_SECRETS = (
    ".ssh", ".aws", ".gnupg", ".netrc", ".git-credentials", ".npmrc", ".yarnrc.yml",
    ".pypirc", ".docker", ".kube", ".password-store", ".vault-token", ".pgpass",
    ".my.cnf", ".gem/credentials", ".config/gh", ".config/hub", ".config/gcloud",
    ".config/git/credentials", ".config/op", ".config/rclone", ".azure",
    ".local/share/keyrings", ".local/share/kwalletd", ".cargo/credentials",
    ".cargo/credentials.toml", ".m2/settings.xml", ".m2/settings-security.xml",
    ".terraform.d/credentials.tfrc.json",
    ".bash_history", ".zsh_history", ".history", ".sh_history", ".python_history",
    ".node_repl_history", ".psql_history", ".mysql_history", ".sqlite_history",
    ".local/share/fish/fish_history", ".lesshst", ".viminfo",
)

#: Names that hold secrets wherever they sit at the top of a shown folder.
SECRET_NAMES = frozenset(
    {Path(p).name for p in HOME_SECRETS if "/" not in p}
    | {"keyrings", "hosts.yml", "id_rsa", "id_ed25519", "id_ecdsa", ".env"})


#: Inside an installation prefix, wherever it sits in a shown folder: npm's global
#: configuration (``npm config set --global`` and ``npm login --location=global`` write
#: their tokens to ``<prefix>/etc/npmrc``), in node's own prefix (nvm's
#: ``versions/node/<v>``, asdf's ``installs/nodejs/<v>``, volta's ``tools/image/node/<v>``).
PREFIX_SECRETS = ("etc/npmrc",)
#: How deep below a shown folder a prefix is looked for (volta's ``tools/image/node/<v>``
#: is 4 below ``~/.volta``), and the folders never looked into, shown or on the way: a
#: prefix's own contents, packages' trees and caches (cargo's registry, Go's module
#: cache, Maven's repository), where no installation's prefix starts.
PREFIX_DEPTH = 4
_NOT_PREFIXES = frozenset({"lib", "lib64", "libexec", "include", "share", "bin", "etc",
                           "node_modules", "site-packages", "src", "doc", "man", "registry",
                           "git", "pkg", "mod", "repository", "caches", "cache", ".git"})


def is_secret_name(name: str) -> bool:
    """A file or folder name that says it holds a secret: the names above, anything
    with ``credentials`` in it, shell histories, ``.env`` files (``.env.local``)."""
    lowered = name.lower()
    return (name in SECRET_NAMES or "credentials" in lowered or lowered.endswith("_history")
            or lowered.startswith(".env.") or lowered.endswith(".pem")
            or lowered.endswith(".key"))


def secrets_within(shown: Iterable[Path], home: Path) -> list[Path]:
    """Every secret-bearing path a sandbox showing ``shown`` would show: the well-known
    places under ``home`` inside a shown folder, and each secret-named entry at the top
    of a shown folder (a shown folder that is itself one, whole)."""
    found: dict[Path, None] = {}
    for root in shown:
        if _secret_path(root, home):
            found[root] = None
            continue
        if home == root or home.is_relative_to(root) or root.is_relative_to(home):
            for rel in HOME_SECRETS:
                path = home / rel
                if path.is_relative_to(root) and os.path.lexists(path):
                    found[path] = None
        if not root.is_dir():
            continue
        try:
            with os.scandir(root) as entries:
                names = [e.name for e in entries]
        except OSError:
            continue
        for name in names:
            if is_secret_name(name):
                found[root / name] = None
        for path in _in_prefixes(root):
            found[path] = None
    return list(found)


def _in_prefixes(root: Path) -> list[Path]:
    """The :data:`PREFIX_SECRETS` of ``root`` and of every folder up to
    :data:`PREFIX_DEPTH` below it (each a possible installation prefix)."""
    found: list[Path] = []
    level = [] if root.name in _NOT_PREFIXES else [root]
    for depth in range(PREFIX_DEPTH + 1):
        below: list[Path] = []
        for folder in level:
            found += [folder / rel for rel in PREFIX_SECRETS
                      if os.path.lexists(folder / rel)]
            if depth == PREFIX_DEPTH:
                continue
            try:
                with os.scandir(folder) as entries:
                    below += [Path(e.path) for e in entries
                              if e.name not in _NOT_PREFIXES
                              and e.is_dir(follow_symlinks=False)]
            except OSError:
                continue
        level = below
    return found


def _secret_path(path: Path, home: Path) -> bool:
    """``path`` is a secret, or inside one (judged by its names below HOME, or by its
    own name elsewhere: a project called ``credentials-api`` is not a secret)."""
    names = path.relative_to(home).parts if path.is_relative_to(home) else (path.name,)
    if any(is_secret_name(part) for part in names):
        return True
    return any(path == home / rel or path.is_relative_to(home / rel) for rel in HOME_SECRETS)
