"""MkDocs hook: the tdd.toml reference, written from rgr's configuration model at build
time, as click_reference.py writes the command reference.

docs/reference/configuration.md holds the marker below; each build replaces it with a
table of every key of ``rgr.base.config.Config`` (its default, the variable that sets
it, what it must be) and a table per section (``[gate]``, ``[sandbox]`` ...: every key
of its model, its default, what it must be, the section's own docstring above it). A
key added to the model shows up at the next build; what a key means is the one thing
written here by hand, and a key without its words (or words for a key that is gone)
fails the build.
"""

from __future__ import annotations

import inspect
import json
from typing import Any

#: Where in the page the generated reference goes.
MARKER = "<!-- rgr:configuration -->"
#: The page that holds the marker (its path under docs/).
PAGE = "reference/configuration.md"

#: What each top-level key is for, in a person's words (links relative to PAGE).
MEANINGS: dict[str, str] = {
    "test_command": "the command that runs the tests: a string (split like a shell, never "
                    "run by one) or a list; unset: detected (below)",
    "test_shell": "run the test command via `/bin/sh -c` (explicit opt-in only)",
    "test_file_globs": "which paths are test files (the default: the usual layouts of "
                       "every ecosystem rgr detects)",
    "junit_xml": "JUnit XML report globs to read instead of rgr's own reporter (see "
                 "[Test runners](../runners.md#test-runners))",
    "max_retries": "attempts per phase after the first",
    "command_timeout": "seconds for the test command",
    "agent_timeout": "seconds for one agent session (its process group is killed)",
    "max_turns": "cap on every agent's turns",
    "model": "model for every agent without its own (unset: the backend's default)",
    "notes_ref": "where handoffs live",
    "agent_binary": "Claude Code's binary: a path, or a name "
                    "[looked for](../backends.md#finding-the-agent-clis) on PATH, in "
                    "`~/.local/bin` and in npm's global prefix",
    "backend": "the agent CLI of every agent whose file names none (flag `--backend`)",
    "codex_binary": "the Codex CLI's binary: a path, or a name looked for as "
                    "`agent_binary` is",
    "codex": "how the Codex backend reaches its model "
             "([details](../backends.md#agent-backends-claude-code-and-codex))",
    "gemini_binary": "the Gemini CLI's binary: a path, or a name looked for as "
                     "`agent_binary` is",
    "opencode_binary": "opencode's binary: a path, or a name looked for as "
                       "`agent_binary` is",
    "branch_prefix": "prefix of the branches `rgr run` creates",
    "gate": "refactor mode's gate ([details](../refactor.md#refactor-mode))",
    "refactor": "refactor mode's caps",
    "sandbox": "the bubblewrap sandbox around agents and test runs (`--no-sandbox` turns "
               "it off for one run; [details](../sealing.md#sealed-attempts-what-an-agent-"
               "can-touch), [toolchains](../runners.md#your-projects-toolchain-with-no-"
               "configuration))",
    "adequacy": "the [mutation gate](../referee.md#tests-that-pin-the-code-the-mutation-"
                "gate) after GREEN and REFACTOR",
    "acceptance": "the [examiner](../referee.md#the-examiner-acceptance-tests-nobody-"
                  "implementing-sees)'s acceptance tests before COMPLETE and before a "
                  "landing (the variable sets its `mode`)",
}

#: Defaults that are not a value: what happens when the key is unset.
UNSET: dict[str, str] = {"test_command": "detected", "model": "the backend's default"}


def _value(value: Any) -> str:
    """A default as it is written in tdd.toml."""
    if isinstance(value, bool):
        return "`true`" if value else "`false`"
    if value is None:
        return "unset"
    if isinstance(value, float) and value.is_integer():
        return f"`{int(value)}`"
    if isinstance(value, list) and len(json.dumps(value)) > 100:
        return f"{len(value)} entries"
    return f"`{json.dumps(value)}`"


def _default(name: str, field: Any, top: bool = True) -> str:
    if top and name in UNSET:
        return UNSET[name]
    if _is_table(field):
        return "a table"
    factory = field.default_factory
    return _value(factory() if factory is not None else field.default)


def _is_table(field: Any) -> bool:
    from pydantic import BaseModel

    return inspect.isclass(field.annotation) and issubclass(field.annotation, BaseModel)


def _cell(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")


def config_reference() -> str:
    """The markdown for every key of tdd.toml, from the model."""
    # Imported here: a failure to import rgr should name this hook (click_reference.py).
    from rgr.base.config import (
        ACCEPTANCE_MODE_VAR,
        ENV_VARS,
        EXPECTED,
        EXPECTED_IN_TABLE,
        Config,
    )

    fields = Config.model_fields
    missing = sorted(set(fields) - set(MEANINGS))
    stale = sorted(set(MEANINGS) - set(fields))
    if missing or stale:
        raise ValueError(f"docs/hooks/config_reference.py: no words for {missing} / words "
                         f"for keys that are gone {stale}: say what each key is for")
    variable = {field: name for name, field in ENV_VARS.items()}
    variable["acceptance"] = ACCEPTANCE_MODE_VAR  # its mode
    rows = ["| key | default | environment | must be | meaning |", "|---|---|---|---|---|"]
    for name, field in fields.items():
        key = f"`[{name}]`" if _is_table(field) else f"`{name}`"
        env = f"`{variable[name]}`" if name in variable else ""
        rows.append(f"| {key} | {_default(name, field)} | {env} | "
                    f"{_cell(EXPECTED.get(name, ''))} | {_cell(MEANINGS[name])} |")
    sections = ["\n".join(rows)]
    for name, field in fields.items():
        if not _is_table(field):
            continue
        model = field.annotation
        doc = inspect.cleandoc(model.__doc__ or "")
        expected = EXPECTED_IN_TABLE.get(name, {})
        table = ["| key | default | must be |", "|---|---|---|"]
        for key, sub in model.model_fields.items():
            table.append(f"| `{key}` | {_default(key, sub, top=False)} | "
                         f"{_cell(expected.get(key, ''))} |")
        sections.append(f"### `[{name}]`\n\n{doc}\n\n" + "\n".join(table))
    return "\n\n".join(sections) + "\n"


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    if page.file.src_uri != PAGE:
        return markdown
    if MARKER not in markdown:
        raise ValueError(f"{PAGE} lost its marker {MARKER!r}: the configuration reference "
                         "has nowhere to go")
    return markdown.replace(MARKER, config_reference())
