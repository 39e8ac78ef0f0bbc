"""Claude Code's PreToolUse hook for rgr: refuse an out-of-scope Write or Edit before it
happens, with a reason the agent reads, so an honest agent corrects itself in the same
session instead of burning a retry.

Run by claude (inside the sandbox) as ``python -I -S pretool.py RULES.json`` with the
tool call as JSON on stdin. The standard library only. ``RULES.json`` (written by rgr,
read-only inside the sandbox) holds the working copy's root and, in order, ``deny``
rules (regex, reason) and the ``allow`` regexes of the phase; paths are matched relative
to the root. ``judges`` (regex, file of a judging module) name the files judged by
what the edit makes of them rather than by their name (a conftest.py of fixtures, a
dependency added to a manifest, an ignore file): the hook works out the file's new
content and asks the module's ``refusal(path, old, new)``. Exit code 2 refuses the call
and shows stderr to the agent; 0 lets it through. This is a courtesy, not the judge:
rgr's checks on the commit decide.
"""

from __future__ import annotations

import importlib.util
import json
import os
import re
import sys
from typing import Any

EDITING_TOOLS = {"Write", "Edit", "MultiEdit", "NotebookEdit"}


def verdict(rules: dict[str, object], call: dict[str, object]) -> str | None:
    """The reason to refuse ``call``, or None to let it through."""
    if call.get("tool_name") not in EDITING_TOOLS:
        return None
    arguments = call.get("tool_input")
    if not isinstance(arguments, dict):
        return None
    raw = arguments.get("file_path") or arguments.get("notebook_path")
    if not isinstance(raw, str) or not raw:
        return None
    root = os.path.realpath(str(rules["root"]))
    cwd = str(call.get("cwd") or root)
    path = os.path.realpath(os.path.join(cwd, raw))
    if path != root and not path.startswith(root + os.sep):
        return (f"{raw} is outside your working copy ({root}); rgr only takes the commits "
                "you make there")
    relative = os.path.relpath(path, root).replace(os.sep, "/")
    for pattern, module in rules.get("judges", []):  # type: ignore[attr-defined]
        if re.fullmatch(pattern, relative):
            refused = _judge(module, relative, path, arguments)
            if refused:
                return f"{relative}: {refused}"
    for pattern, reason in rules.get("deny", []):  # type: ignore[attr-defined]
        if re.fullmatch(pattern, relative):
            return f"{relative}: {reason}"
    allow = rules.get("allow")
    if isinstance(allow, list) and not any(re.fullmatch(p, relative) for p in allow):
        return f"{relative}: {rules.get('scope', 'out of scope for this phase')}"
    return None


def _judge(module_file: str, relative: str, path: str, arguments: dict[str, Any]) -> str | None:
    """What the judging module says of the file the call would leave at ``path``."""
    old = _read(path)
    new = _after(old, arguments)
    if new is None:
        return None  # an edit that cannot apply fails by itself; the commit is judged
    try:
        spec = importlib.util.spec_from_file_location(f"rgr_judge_{len(sys.modules)}",
                                                      module_file)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[spec.name] = module  # dataclasses look their module up there
        spec.loader.exec_module(module)
        reason = module.refusal(relative, old, new)
    except Exception as exc:  # refusing is the safe side
        return f"rgr could not judge this file's new content ({exc}); leave it unchanged"
    return str(reason) if reason else None


def _read(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            return handle.read()
    except OSError:
        return None


def _after(old: str | None, arguments: dict[str, Any]) -> str | None:
    """The file's content once a Write, Edit or MultiEdit applied (None: unknown)."""
    if isinstance(arguments.get("content"), str):
        return str(arguments["content"])
    edits = arguments.get("edits")
    text = old
    for edit in edits if isinstance(edits, list) else [arguments]:
        if text is None or not isinstance(edit, dict):
            return None
        before, after = edit.get("old_string"), edit.get("new_string")
        if not isinstance(before, str) or not isinstance(after, str) or before not in text:
            return None
        text = text.replace(before, after, -1 if edit.get("replace_all") else 1)
    return text


def main(args: list[str]) -> int:
    try:
        with open(args[0], encoding="utf-8") as handle:
            rules = json.load(handle)
        call = json.loads(sys.stdin.read() or "{}")
    except (OSError, ValueError, IndexError) as exc:
        print(f"rgr's tool guard could not read its rules: {exc}", file=sys.stderr)
        return 2
    reason = verdict(rules, call)
    if reason is None:
        return 0
    print(f"rgr refuses this edit: {reason}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
