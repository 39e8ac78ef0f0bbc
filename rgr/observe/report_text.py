"""``rgr report``: the final account of the run at HEAD, and what to do with it.

Printed at the end of a completed ``rgr run``/``rgr resume`` too. ``--integrate merge``
fast-forwards the branch the run started from, ``--integrate pr`` opens a pull request
through ``gh``, ``--integrate none`` (the default) leaves it; rejecting is
``rgr rollback``.
"""

from __future__ import annotations

from rgr.base.ui import duration, money, short
from rgr.check.mutation.score import score as adequacy_score
from rgr.observe.report import RunReport
from rgr.store import acceptance_text
from rgr.store.handoff import FakeItDebt


def lines(report: RunReport) -> list[tuple[str, str]]:
    total = len(report.tests_done) + len(report.tests_pending)
    if report.status == "complete":
        status = f"complete after {report.cycles} cycle(s)"
    elif report.status == "failed":
        status = f"failed before {report.next_phase}: {report.error}"
    elif report.status == "needs-attention" and report.needs_attention \
            and report.needs_attention.get("by") == "fake-it debt":
        stop = report.needs_attention
        status = (f"needs attention before {stop['phase']} (cycle {stop['cycle']}): the "
                  f"feature is not complete: {stop['reason']}")
    elif report.status == "needs-attention" and report.needs_attention:
        stop = report.needs_attention
        status = (f"needs attention before {stop['phase']} (cycle {stop['cycle']}): its agent "
                  f"says it cannot be done honestly: {stop['reason']}")
    else:
        status = f"paused before {report.next_phase} (cycle {report.cycles}): `rgr resume` goes on"
    start = f" (from {report.start_branch}" if report.start_branch else " ("
    start += f" at {short(report.base_commit)})" if report.base_commit else ")"
    rows = [
        ("run", f"{short(report.run_id) or '-'} on {report.branch or '-'}"
                + (start if start != " ()" else "")),
        ("status", status),
        ("tests done", f"{len(report.tests_done)} of {total}"
                       + (": " + "; ".join(report.tests_done) if report.tests_done else "")),
    ]
    if report.tests_pending:
        rows.append(("tests to do", "; ".join(report.tests_pending)))
    rows += [
        ("commits", f"{report.commits} ({'1 start marker, ' if report.marker else ''}"
                    f"{report.phases} verified phase(s))"),
        ("time", f"{duration(report.elapsed_s)} from start to last handoff "
                 f"({duration(report.phase_time_s)} in the phases)"),
        *_time_split_row(report),
        ("cost", f"{money(report.cost_usd)} over {report.agent_sessions} agent session(s)"
                 + (f", of which {money(report.rejected_cost_usd)} on rejected attempts"
                    if report.rejected_cost_usd else "")
                 + _uncosted(report)
                 + f"; {report.input_tokens:,} tokens in, {report.output_tokens:,} out"),
    ]
    by_rule = report.rejections_by_rule
    kept = len(report.rejections)
    retries = f"{report.retries} rejected attempt(s)"
    if by_rule:
        retries += ": " + ", ".join(f"{rule} ×{n}" for rule, n in sorted(by_rule.items()))
    if report.retries > kept:
        retries += f"; {report.retries - kept} without a commit (no-commit or agent error)"
    rows.append(("retries", retries))
    rows += [("fake-it debt", FakeItDebt.model_validate(d).line_of_account())
             for d in report.fake_it_debt]
    if report.acceptance is not None:  # the examiner (rgr.tdd.examine)
        rows.append(("acceptance", acceptance_text.summary(report.acceptance)
                     + _share(report.acceptance.get("costUsd"), report.cost_usd)))
        rows += [("acceptance test", line)
                 for line in acceptance_text.test_lines(report.acceptance)]
    if report.needs_attention and report.needs_attention.get("by") not in (
            "fake-it debt", "acceptance tests"):
        kept_at = report.needs_attention.get("kept")
        rows.append(("way out", "1 attempt stopped the run instead of being retried"
                                + (f"; its commits kept at {kept_at}" if kept_at else "")
                                + "; a person decides: `rgr resume` tries again, "
                                  "`rgr rollback` redoes an earlier phase"))
    if kept and report.run_id:
        rows.append(("kept at", f"refs/rgr/attempts/{report.run_id}/ ({kept}; "
                                "`rgr history --all` lists them)"))
    if report.set_aside:
        rows.append(("set aside", f"{len(report.set_aside)} commit(s) made outside rgr, kept by "
                                  f"`rgr resume`: {', '.join(report.set_aside)}"))
    rows += _mutation_rows(report)
    if report.permission_denials:
        rows.append(("denials", f"{report.permission_denials} tool call(s) refused by the "
                                "agents' permission rules"))
    return rows


def _uncosted(report: RunReport) -> str:
    """The sessions whose backend reports tokens but no cost, with the backends' names as
    the notes record them (never a name written here: the registry's)."""
    if not report.sessions_without_cost:
        return ""
    names = report.backends_without_cost or ["their backend"]
    return (f" ({report.sessions_without_cost} without a cost: {', '.join(names)} "
            f"report{'s' if len(names) == 1 else ''} tokens only)")


def _share(part: object, whole: float) -> str:
    """The examiner's share of the run's agent cost, when both are known."""
    if not isinstance(part, int | float) or whole <= 0:
        return ""
    return f"; {100 * part / whole:.0f}% of the run's agent cost"


def _mutation_rows(report: RunReport) -> list[tuple[str, str]]:
    """The mutation gate: the run's totals, then each phase that did not simply pass,
    and every equivalence claim with its reason."""
    gated = [m for m in report.mutation if m.get("tried")]
    if not report.mutation:
        return []
    tried = sum(m["tried"] for m in gated)
    killed = sum(m["killed"] for m in gated)
    rows = [("mutation", f"{killed}/{tried} mutants of changed lines killed over "
                         f"{len(gated)} gated phase(s)")]
    for gate in report.mutation:
        if gate["decision"] not in ("pass", "report-only") or gate.get("notRun"):
            rows.append(("gated", f"cycle {gate['cycle']} {gate['phase']} "
                             f"{short(gate['commit'])}: {adequacy_score(gate)}: "
                             f"{gate['decision']}"))
        rows += [("equivalent", f"{c['path']}:{c['line']} {c['original']!r} -> "
                                f"{c['replacement']!r}: {c.get('reason')}")
                 for c in gate.get("claims") or []]
    return rows


def _time_split_row(report: RunReport) -> list[tuple[str, str]]:
    """The run's wall time in parts that add up to it (from its events, when here)."""
    split = report.time_split
    if not split:
        return []
    unsplit = split.get("agentUnsplitS", 0.0)
    names = ", ".join(report.model_time_unreported) or "their backend"
    whole = (f"{duration(unsplit)} in sessions of {names}, which report no model time "
             "(model and tools together), " if unsplit else "")
    return [("time split", f"{duration(split['wallS'])} of rgr runs: "
                           f"{duration(split['agentModelS'])} model (as the agents report "
                           f"it), {duration(split['agentOtherS'])} agent start-up and "
                           f"tools, {whole}{duration(split['testsS'])} test runs, "
                           f"{duration(split['rgrS'])} rgr and git")]


def text(report: RunReport, decision: bool = True) -> list[str]:
    """The report as plain lines; ``decision``: a complete run's ways to accept or
    reject it follow."""
    rows = lines(report)
    width = max(len(k) for k, _ in rows)
    said = [f"rgr report: {report.feature or '-'}"]
    said += [f"  {key:<{width}}  {value}" for key, value in rows]
    if report.status != "complete" or not decision:
        return said
    target = report.start_branch or "<branch>"
    said += ["", "The decision is yours:",
             f"  accept   rgr report --integrate merge   fast-forward {target} to "
             f"{report.branch or '-'}",
             "           rgr report --integrate pr      push the branch and open a pull "
             "request (gh)"]
    if report.marker:
        said.append(f"  reject   rgr rollback {short(report.marker)}          undo the run's "
                    "commits (kept under refs/rgr/backups/)"
                    + (f", then `git switch {target}`" if report.start_branch else ""))
    return said


def markdown(report: RunReport) -> str:
    """The pull request's body."""
    body = ["Developed by rgr in strict TDD (PLAN → RED → GREEN → REFACTOR), every phase "
            "verified and noted under `refs/notes/tdd-handoffs`.\n"]
    body += [f"- **{key}**: {value}" for key, value in lines(report)]
    body.append("\nAudit: `git fetch origin refs/notes/tdd-handoffs:refs/notes/tdd-handoffs "
                "&& git log --notes=tdd-handoffs`")
    return "\n".join(body) + "\n"
