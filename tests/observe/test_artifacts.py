"""The run folder (rgr.observe.artifacts): the files it writes, secrets redacted."""

from __future__ import annotations

import json
from pathlib import Path

from rgr.observe.artifacts import REDACTED, Redactor, RunArtifacts
from rgr.observe.events import (
    AgentCalled,
    AgentStreamed,
    AttemptStarted,
    InvocationStarted,
    TestRun,
    Where,
)

# -- redaction and the run folder -----------------------------------------------------------


def test_redactor_hides_secret_variables_and_key_shaped_strings() -> None:
    redact = Redactor({"MY_API_KEY": "abcdefgh12345", "GITHUB_TOKEN": "tok-0123456789",
                       "HOME": "/home/someone", "SHORT_SECRET": "x"})
    text = ("key abcdefgh12345 token tok-0123456789 home /home/someone x "
            "sk-ant-api03-AAAABBBBCCCC ghp_" + "a" * 36)
    assert redact.text(text) == (f"key {REDACTED} token {REDACTED} home /home/someone x "
                                 f"{REDACTED} {REDACTED}")
    assert redact.data({"a": ["tok-0123456789", 3]}) == {"a": [REDACTED, 3]}


def test_artifacts_write_files_and_redact(tmp_path: Path) -> None:
    secret = 's3cr3t"value\\42'  # JSON escapes it: redaction must come first
    system = tmp_path / "tester.md"
    system.write_text("<!-- prompt-version: tester/1 -->\nYou are the TESTER")
    arts = RunArtifacts(tmp_path / "git", "run-1", {"DEPLOY_TOKEN": secret})
    where = Where("RED", 1, 1, "s1")
    arts.emit(InvocationStarted(command="run", run_id="run-1"))
    arts.emit(AttemptStarted(where=where, prompt=f"use {secret}",
                             system_prompt_file=str(system), prompt_version="tester/1"))
    arts.emit(AgentStreamed(where=where, event={"type": "system", "subtype": "api_retry",
                                                "attempt": 1, "error_status": 529}))
    arts.emit(AgentStreamed(where=where, event={
        "type": "assistant", "message": {"content": [
            {"type": "tool_use", "name": "Bash", "input": {"command": f"echo {secret}"}}]}}))
    arts.emit(AgentCalled(where=where, ok=True, cost_usd=0.5, input_tokens=10,
                          output_tokens=2, duration_api_ms=7,
                          result={"type": "result", "echo": secret}))
    arts.emit(TestRun(passed=1, failed=0, output=f"printed {secret}"))
    arts.close()
    folder = tmp_path / "git" / "rgr" / "runs" / "run-1"
    files = {p.relative_to(folder).as_posix(): p.read_text()
             for p in folder.rglob("*") if p.is_file()}
    assert set(files) == {"events.jsonl", "summary.json", "tests/005.txt",
                          "attempts/002-c1-RED-a1/prompt.md",
                          "attempts/002-c1-RED-a1/system-prompt.md",
                          "attempts/002-c1-RED-a1/request.json",
                          "attempts/002-c1-RED-a1/stream.jsonl",
                          "attempts/002-c1-RED-a1/result.json"}
    escaped = json.dumps(secret)[1:-1]
    assert all(secret not in text and escaped not in text for text in files.values())
    assert files["attempts/002-c1-RED-a1/prompt.md"] == f"use {REDACTED}"
    assert "prompt-version: tester/1" in files["attempts/002-c1-RED-a1/system-prompt.md"]
    records = [json.loads(x) for x in files["events.jsonl"].splitlines()]
    assert [r["type"] for r in records] == ["invocation_started", "attempt_started", "retry",
                                            "agent_call", "test_run"]
    # the agent_call line, field by field and in order, as rgr has always written it
    call = records[3]
    assert list(call) == [
        "type", "ts", "phase", "cycle", "attempt", "sessionId", "ok", "backend", "model",
        "errorKind", "error", "numTurns", "costUsd", "durationMs", "inputTokens",
        "outputTokens", "cacheReadInputTokens", "cacheCreationInputTokens",
        "permissionDenials", "toolCalls", "refusedEdits", "durationApiMs", "dir", "seq"]
    assert (call["costUsd"], call["durationApiMs"], call["toolCalls"]) == (0.5, 7, 1)
    assert json.loads(files["attempts/002-c1-RED-a1/result.json"])["echo"] == REDACTED
    assert list(records[4]) == ["type", "ts", "command", "exitCode", "durationS", "passed",
                                "failed", "errors", "skipped", "timedOut", "outputFile",
                                "seq"]
    totals = json.loads(files["summary.json"])["totals"]
    assert (totals["apiRetries"], totals["toolCalls"], totals["costUsd"]) == (1, 1, 0.5)
    # a second invocation of the same run appends to the same folder
    again = RunArtifacts(tmp_path / "git", "run-1", {})
    again.emit(InvocationStarted(command="resume", run_id="run-1"))
    assert len(again.events) == 6
