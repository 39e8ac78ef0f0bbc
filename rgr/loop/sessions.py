"""What rgr records of one agent session: its ``agent_call`` event, the in-flight
record's summary of it (and the result read back from that after a crash), and the
run log's line for the tool calls its sandbox refused."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pydantic

from rgr.backends.base import AgentResult, audit_record, session_figures
from rgr.base.backend_names import DEFAULT
from rgr.base.errors import BackendError
from rgr.observe.events import AgentCalled, Where


def describe_denials(denials: Sequence[dict[str, Any]], limit: int = 5) -> str:
    """``Bash: git push origin main; Write: /etc/passwd`` for the run log (bounded)."""
    shown = []
    for denial in denials[:limit]:
        tool = str(denial.get("tool_name", "?"))
        arguments = denial.get("tool_input")
        detail = ""
        if isinstance(arguments, dict):
            detail = str(arguments.get("command") or arguments.get("file_path")
                         or arguments.get("url") or "")
        shown.append(f"{tool}: {detail[:120]}" if detail else tool)
    more = f" (+{len(denials) - limit} more)" if len(denials) > limit else ""
    return "; ".join(shown) + more


def result_record(result: AgentResult) -> dict[str, Any]:
    """What the in-flight record keeps of a finished session (not its raw transcript)."""
    return {"session_id": result.session_id, "num_turns": result.num_turns,
            "cost_usd": result.cost_usd or 0.0, "duration_ms": result.duration_ms,
            "usage": {"input_tokens": result.input_tokens,
                      "output_tokens": result.output_tokens,
                      "cache_read_input_tokens": result.cache_read_input_tokens,
                      "cache_creation_input_tokens": result.cache_creation_input_tokens},
            "permission_denials": len(result.permission_denials),
            "backend": result.backend, "model": result.model,
            "cost_known": result.cost_usd is not None}


def result_from_record(record: dict[str, Any], output: pydantic.BaseModel) -> AgentResult:
    usage = record.get("usage") or {}
    return AgentResult(
        session_id=str(record.get("session_id", "")), output=output,
        num_turns=int(record.get("num_turns", 0)),
        cost_usd=(float(record.get("cost_usd", 0.0)) if record.get("cost_known", True)
                  else None),
        duration_ms=int(record.get("duration_ms", 0)),
        input_tokens=int(usage.get("input_tokens", 0)),
        output_tokens=int(usage.get("output_tokens", 0)),
        cache_read_input_tokens=int(usage.get("cache_read_input_tokens", 0)),
        cache_creation_input_tokens=int(usage.get("cache_creation_input_tokens", 0)),
        permission_denials=({},) * int(record.get("permission_denials", 0)),
        raw={"recovered": True}, backend=str(record.get("backend") or DEFAULT),
        model=record.get("model"))


def agent_call_event(where: Where, result: AgentResult | None,
                     error: BackendError | None) -> AgentCalled:
    """The ``agent_call`` event of one session: its figures, whether it succeeded."""
    outcome = result if result is not None else error
    figures = session_figures(outcome)
    record = audit_record(outcome)
    kind = error.kind if error else None
    message = error.message[:2000] if error else None
    if figures is None:  # the session never ran, or its backend could not say
        return AgentCalled(where=where, ok=error is None, error_kind=kind, error=message,
                           result=record)
    return AgentCalled(
        where=where, ok=error is None, backend=figures.backend, model=figures.model,
        error_kind=kind, error=message,
        num_turns=figures.num_turns, cost_usd=figures.cost_usd,
        duration_ms=figures.duration_ms, duration_api_ms=figures.duration_api_ms,
        input_tokens=figures.input_tokens, output_tokens=figures.output_tokens,
        cache_read_input_tokens=figures.cache_read_input_tokens,
        cache_creation_input_tokens=figures.cache_creation_input_tokens,
        permission_denials=len(figures.permission_denials), result=record)
