"""Ignore rules that would hide rgr's own configuration from git.

rgr reads its configuration (``tdd.toml``, the ``.rgr/`` overrides) from the user's
committed tree. A ``.gitignore`` rule that matches them makes git skip the user's next
``tdd.toml`` or override without a word, so rgr would run with settings the user never
saw committed: configuration tampering, refused in every phase, whatever else the
change does.

After the fact rgr asks git itself (``rgr.store.git.ignored_paths``, libgit2's matching, on the
base's and the tip's ignore files) which of :data:`PROBES` became ignored. Before the
fact, the PreToolUse hook (rgr.sandbox.pretool, which loads this file by path, the
standard library only) judges the lines an edit adds with :func:`refusal`, a close
reading of gitignore's pattern rules.
"""

from __future__ import annotations

import re

#: Paths that stand for rgr's configuration: ignoring any of them hides it.
PROBES = ("tdd.toml", ".rgr/agents/implementer.toml", ".rgr/prompts/implementer.md",
          ".rgr/tdd.toml")


def is_ignore_file(path: str) -> bool:
    return path.rsplit("/", 1)[-1] == ".gitignore"


def refusal(path: str, old: str | None, new: str | None) -> str | None:
    """Why the lines ``new`` adds to the ignore file at ``path`` are refused (they
    would hide rgr's configuration), with the way out; None when they would not."""
    before = set(_rules(old or ""))
    folder = path.rsplit("/", 1)[0] + "/" if "/" in path else ""
    hidden = sorted({probe for rule in _rules(new or "") if rule not in before
                     for probe in PROBES if _hides(rule, folder, probe)})
    if not hidden:
        return None
    return (f"these ignore rules would hide rgr's configuration ({', '.join(hidden)}) from "
            "git; that is configuration tampering, refused in every phase. Leave rules that "
            "match tdd.toml or .rgr/ out (other ignore rules are fine)")


def _rules(text: str) -> list[str]:
    rules = []
    for line in text.splitlines():
        line = line.rstrip("\r")
        if not line.strip() or line.startswith("#") or line.startswith("!"):
            continue  # a negation un-ignores: it never hides anything
        rules.append(line.rstrip(" ") if not line.endswith("\\ ") else line)
    return rules


def _hides(rule: str, folder: str, probe: str) -> bool:
    """Whether ``rule`` in the ignore file of ``folder`` ignores ``probe`` or one of the
    folders leading to it."""
    if folder and not probe.startswith(folder):
        return False
    relative = probe[len(folder):]
    directory_only = rule.endswith("/")
    pattern = rule.rstrip("/")
    anchored = "/" in pattern
    pattern = pattern.lstrip("/")
    parts = relative.split("/")
    # the probe itself, then each folder on the way to it (a folder rule hides all inside)
    candidates = [("/".join(parts[:i]), i < len(parts)) for i in range(1, len(parts) + 1)]
    regex = re.compile(_translate(pattern))
    for candidate, is_folder in candidates:
        if directory_only and not is_folder:
            continue
        subject = candidate if anchored else candidate.rsplit("/", 1)[-1]
        if regex.fullmatch(subject):
            return True
    return False


def _translate(pattern: str) -> str:
    """A gitignore glob as a regex over a slash-separated path."""
    out = []
    i = 0
    while i < len(pattern):
        char = pattern[i]
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
            continue
        if pattern.startswith("/**", i) and i + 3 == len(pattern):
            out.append("/.*")
            i += 3
            continue
        if char == "*":
            out.append("[^/]*")
        elif char == "?":
            out.append("[^/]")
        elif char == "[":
            end = pattern.find("]", i + 2)
            if end == -1:
                out.append(re.escape(char))
            else:
                body = pattern[i + 1:end].replace("\\", "\\\\")
                out.append("[" + ("^" + body[1:] if body.startswith("!") else body) + "]")
                i = end
        elif char == "\\" and i + 1 < len(pattern):
            i += 1
            out.append(re.escape(pattern[i]))
        else:
            out.append(re.escape(char))
        i += 1
    return "".join(out)
