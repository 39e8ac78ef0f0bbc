"""The parts every agent CLI's process shares (rgr.backends.cli_process), run for real:
a real process, a real missing executable, real folders."""

from __future__ import annotations

import os
from pathlib import Path

import pydantic
import pytest

from rgr.backends.base import AgentRequest, AgentRunError
from rgr.backends.cli_process import (
    ThrowawayHome,
    probe_login,
    require_version,
    run_cli,
    session_timed_out,
)
from rgr.base.errors import BackendError


def _request(tmp_path: Path) -> AgentRequest:
    return AgentRequest(prompt="p", system_prompt_file=tmp_path / "s.md",
                        output_model=pydantic.BaseModel, tools=(), allowed_tools=(),
                        disallowed_tools=(), max_turns=1, model=None, cwd=tmp_path,
                        timeout_s=2.5, session_id="s-1")


def test_a_call_streams_its_lines_and_a_missing_cli_is_named_with_where_it_was_sought(
        tmp_path: Path) -> None:
    lines: list[str] = []
    done = run_cli("echoer", "/bin/sh", ["/bin/sh", "-c", "echo one; echo two"], cwd=tmp_path,
                   timeout=10, env=dict(os.environ), install_hint="install it",
                   on_line=lines.append)
    assert done.returncode == 0 and lines == ["one", "two"]

    with pytest.raises(BackendError) as caught:
        run_cli("nocli", "rgr-no-such-cli", ["rgr-no-such-cli", "--version"], cwd=tmp_path,
                timeout=10, env={"PATH": str(tmp_path)}, install_hint="npm install -g nocli")
    assert caught.value.kind == "missing_binary"
    assert "cannot run nocli ('rgr-no-such-cli')" in caught.value.message
    assert "is not on PATH" in caught.value.message  # where it was sought
    assert caught.value.hint == "npm install -g nocli"


def test_the_version_gate_names_the_minimum_and_the_update(tmp_path: Path) -> None:
    assert require_version("cli 1.2.3", cli="cli", package="pkg", minimum=(1, 2, 3),
                           update="npm i pkg") == "cli 1.2.3"
    for text in ("cli 1.2.2", "no version here"):
        with pytest.raises(BackendError) as caught:
            require_version(text, cli="cli", package="pkg", minimum=(1, 2, 3),
                            update="npm i pkg")
        assert caught.value.kind == "unsupported_version"
        assert "rgr needs pkg >= 1.2.3" in caught.value.message
        assert caught.value.hint == "update it: `npm i pkg`"


def test_a_timed_out_session_is_retryable_and_says_how_long(tmp_path: Path) -> None:
    error = session_timed_out("cli", _request(tmp_path))
    assert error.kind == "timeout" and error.retryable
    assert "cli session s-1 did not finish within 2.5s" in error.message


def test_a_throwaway_home_is_gone_after_the_call_and_a_fixed_one_stays(
        tmp_path: Path) -> None:
    with ThrowawayHome("rgr-x-", str(tmp_path)) as home:
        (home / "config.json").write_text("{}")
        assert home.parent == tmp_path and home.name.startswith("rgr-x-")
    assert not home.exists()
    kept = tmp_path / "kept"
    with ThrowawayHome("rgr-x-", str(tmp_path), fixed=kept) as home:
        assert home == kept
    assert kept.is_dir()


def test_the_login_probe_says_what_failed_and_takes_any_answer(tmp_path: Path) -> None:
    def answers(kind: str | None) -> object:
        def session(request: AgentRequest) -> object:
            if kind is not None:
                raise AgentRunError(kind, f"{kind} happened", "the hint")
            return "an answer"
        return session

    probe_login(answers(None), _request(tmp_path))
    probe_login(answers("invalid_output"), _request(tmp_path))  # an answer, if not a good one
    for kind in ("not_logged_in", "api_error", "timeout"):
        with pytest.raises(BackendError) as caught:
            probe_login(answers(kind), _request(tmp_path))
        assert type(caught.value) is BackendError and caught.value.kind == kind
