"""The user's own configuration of a runner's tools, as a sandbox gets it: a copy with
its credentials left out, never the original.

A test run reads files under HOME that the sandbox's throwaway HOME does not have:
``~/.npmrc`` (a registry, a proxy, ``ignore-scripts``), pip's ``pip.conf`` (an index,
``no-index``, ``find-links``). The same files keep tokens (``//host/:_authToken=``,
``_auth``, ``_password``) and URLs with a password in them. Each is copied into the
sandbox's HOME line by line, leaving out every line that holds or may hold a credential
(rgr.sandbox.secrets still covers the originals wherever a shown folder holds them):

- a key that names a credential (``auth``, ``token``, ``password``, ``username``,
  ``email``, ``otp``, ``secret``, a client key or certificate);
- a key scoped to one registry (npm's ``//host/path/:key=``: every such key is an
  account's setting);
- a value with a user in its URL (``https://user:pass@host/``);
- a comment (an old token kept in one is still a token);
- the continuation lines of a line left out (an INI value spanning lines).

Which files each ecosystem's runners read is declared by the ecosystem
(``home_config``); a name under ``.config/`` is read from ``$XDG_CONFIG_HOME`` when the
user sets it, and lands under the sandbox's own (rgr.sandbox.policy sets it inside).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from pathlib import Path

#: Words in a key that say its value is a credential.
_SECRET_KEY = re.compile(
    r"auth|token|passw|secret|username|email|otp|(^|[-_])key(file)?$|cert(file)?$|"
    r"client-cert", re.IGNORECASE)
#: A URL with a user (and perhaps a password) in it.
_URL_WITH_USER = re.compile(r"://[^/\s@]+@")
_KEY = re.compile(r"^\s*([^=:\s][^=]*?)\s*[=:]")


def without_credentials(text: str) -> str:
    """``text`` (an ``.npmrc`` or an INI file) less every line that holds or may hold a
    credential (see the module's docstring)."""
    kept: list[str] = []
    leaving_out = False
    for line in text.splitlines():
        stripped = line.strip()
        if line[:1] in (" ", "\t") and stripped:
            # An INI continuation goes with the line it continues; an indented key is
            # judged as any other.
            if leaving_out or _credential(line):
                continue
            kept.append(line)
            continue
        leaving_out = False
        if not stripped:
            kept.append("")
            continue
        if stripped.startswith(("#", ";")):
            continue
        if stripped.startswith("[") and stripped.endswith("]"):
            kept.append(stripped)
            continue
        if _credential(line):
            leaving_out = True
            continue
        kept.append(line)
    return "\n".join(kept).strip("\n") + "\n"


def holds_credentials(text: str) -> bool:
    """Whether a line of ``text`` other than a comment holds or may hold a credential
    (a cargo ``config.toml`` with a registry's ``token``)."""
    return any(_credential(line) for line in text.splitlines()
               if line.strip() and not line.strip().startswith(("#", ";", "[")))


def _credential(line: str) -> bool:
    match = _KEY.match(line)
    key = match.group(1).strip("\"'") if match else line.strip()
    return bool(key.startswith("//") or _SECRET_KEY.search(key)
                or _URL_WITH_USER.search(line))


def source_of(name: str, home: Path, env: Mapping[str, str]) -> Path:
    """Where the user keeps ``name`` (a path relative to HOME): under
    ``$XDG_CONFIG_HOME`` for a name under ``.config/`` when the user sets it."""
    xdg = env.get("XDG_CONFIG_HOME", "")
    if name.startswith(".config/") and xdg and os.path.isabs(xdg):
        return Path(xdg) / name.removeprefix(".config/")
    return home / name


def copy_filtered(source: Path, target: Path) -> None:
    """Write ``source`` less its credentials to ``target`` (its folders made). Raises
    OSError when ``source`` cannot be read. Readable by all, as a plain copy would be:
    the sandbox's user may be another one (rgr.sandbox.jail), and the copy sits in the
    session's own folder, closed to others."""
    text = source.read_text(encoding="utf-8", errors="replace")
    target.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "w", encoding="utf-8") as out:
        out.write(without_credentials(text))
