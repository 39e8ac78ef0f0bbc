"""What rgr records of one agent session: its ``agent_call`` event, the in-flight
record's summary of it (and the result read back from that after a crash), and the
run log's line for the tool calls its sandbox refused."""

from __future__ import annotations

from typing import Any

import pydantic

from rgr.backends.base import AgentResult, AgentRunError, usd
from rgr.backends.claude import usage_of
from rgr.base.errors import BackendError
from rgr.observe.events import Event, event


def describe_denials(denials: list[dict[str, Any]], limit: int = 5) -> str:
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
            "cost_usd": result.cost_usd, "duration_ms": result.duration_ms,
            "usage": dict(result.usage), "permission_denials": len(result.permission_denials),
            "backend": result.backend, "model": result.model, "cost_known": result.cost_known}


def result_from_record(record: dict[str, Any], output: pydantic.BaseModel) -> AgentResult:
    return AgentResult(
        session_id=str(record.get("session_id", "")), output=output,
        num_turns=int(record.get("num_turns", 0)), cost_usd=float(record.get("cost_usd", 0.0)),
        duration_ms=int(record.get("duration_ms", 0)), usage=dict(record.get("usage", {})),
        permission_denials=[{}] * int(record.get("permission_denials", 0)),
        raw={"recovered": True}, backend=str(record.get("backend") or "claude"),
        model=record.get("model"), cost_known=bool(record.get("cost_known", True)))


def agent_call_event(where: dict[str, Any], result: AgentResult | None,
                     error: BackendError | None) -> Event:
    """The ``agent_call`` event of one session: its accounting, whether it succeeded."""
    raw: dict[str, Any] | None = result.raw if result is not None else (
        error.raw if isinstance(error, AgentRunError) else None)
    usage = usage_of(raw or {})
    denials = raw.get("permission_denials") if raw else None
    return event(
        "agent_call", **where, ok=error is None,
        backend=result.backend if result is not None else (raw or {}).get("backend"),
        model=result.model if result is not None else (raw or {}).get("model"),
        errorKind=error.kind if error else None, error=error.message[:2000] if error else None,
        numTurns=int(raw.get("num_turns") or 0) if raw else 0,
        # None: the backend reports no cost (codex), which is not the same as $0.
        costUsd=None if raw and "total_cost_usd" in raw and raw["total_cost_usd"] is None
        else usd(raw.get("total_cost_usd")) if raw else 0.0,
        durationMs=int(raw.get("duration_ms") or 0) if raw else 0,
        inputTokens=usage["input_tokens"], outputTokens=usage["output_tokens"],
        cacheReadInputTokens=usage["cache_read_input_tokens"],
        cacheCreationInputTokens=usage["cache_creation_input_tokens"],
        permissionDenials=len(denials) if isinstance(denials, list) else 0,
        result=raw)
