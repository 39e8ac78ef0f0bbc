"""A demo stopped with Ctrl-C cannot be resumed (its model was the replay server, gone
with it): `rgr resume` in its kata says so with the login refusal, instead of a bare
"claude is not logged in" (measured by hand: rgr demo, SIGINT, rgr resume)."""

from __future__ import annotations

from rgr.backends.base import AgentRunError
from rgr.commands.run import _in_a_demo_kata
from rgr.demo.kata import FEATURE
from rgr.store.handoff import HandoffState, Phase


def _refused() -> AgentRunError:
    return AgentRunError("not_logged_in", "claude is not logged in: Not logged in",
                         "run `claude` and `/login`")


def test_resuming_a_demos_kata_says_why_the_login_is_asked() -> None:
    said = _in_a_demo_kata(_refused(), HandoffState(phase=Phase.RED, feature=FEATURE))
    assert said.message.startswith("claude is not logged in: Not logged in (this is the "
                                   "kata of an `rgr demo` that was stopped"), said.message
    assert said.hint == ("run `rgr demo` again for a new replay; or, to go on with your "
                         "own login: run `claude` and `/login`")


def test_any_other_run_keeps_the_refusal_as_it_is() -> None:
    refused = _refused()
    said = _in_a_demo_kata(refused, HandoffState(phase=Phase.RED, feature="parse dates"))
    assert said is refused and said.message == "claude is not logged in: Not logged in"
