"""Where users keep secrets: never shown to a sandbox, even inside a folder a tool needs.

One rule, in one place (rgr.sandbox.policy applies it to every jail): after everything a
sandbox shows is bound, each of these found inside it is covered again, a folder with an
empty one, a file with an empty file. A toolchain home under HOME (``~/.cargo``) is
shown for its tools, never for the ``credentials.toml`` beside them; a folder named in
``[sandbox] read_paths`` that holds ``.npmrc`` shows everything but the token.
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
    return list(found)


def _secret_path(path: Path, home: Path) -> bool:
    """``path`` is a secret, or inside one (judged by its names below HOME, or by its
    own name elsewhere: a project called ``credentials-api`` is not a secret)."""
    names = path.relative_to(home).parts if path.is_relative_to(home) else (path.name,)
    if any(is_secret_name(part) for part in names):
        return True
    return any(path == home / rel or path.is_relative_to(home / rel) for rel in HOME_SECRETS)
