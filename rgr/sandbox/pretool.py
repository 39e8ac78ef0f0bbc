"""Claude Code's PreToolUse hook for rgr: refuse an out-of-scope Write or Edit before it
happens, with a reason the agent reads, so an honest agent corrects itself in the same
session instead of burning a retry.

Run by claude (inside the sandbox) as ``python -I -S pretool.py RULES.json`` with the
tool call as JSON on stdin. The standard library only. ``RULES.json`` (written by rgr,
read-only inside the sandbox) holds the working copy's root and, in order, ``deny``
rules (regex, reason) and the ``allow`` regexes of the phase; paths are matched relative
to the root. Exit code 2 refuses the call and shows stderr to the agent; 0 lets it
through. This is a courtesy, not the judge: rgr's checks on the commit decide.
"""

from __future__ import annotations

import json
import os
import re
import sys

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
    for pattern, reason in rules.get("deny", []):  # type: ignore[attr-defined]
        if re.fullmatch(pattern, relative):
            return f"{relative}: {reason}"
    allow = rules.get("allow")
    if isinstance(allow, list) and not any(re.fullmatch(p, relative) for p in allow):
        return f"{relative}: {rules.get('scope', 'out of scope for this phase')}"
    return None


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
