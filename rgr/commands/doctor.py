"""``rgr doctor``: what the sandbox shows of this machine and why, which executable each
command resolves to inside it, and whether the test command runs there, with the precise
cause and fix when it does not. It runs exactly the check ``rgr run``'s preflight runs."""

from __future__ import annotations

import shutil
from dataclasses import dataclass

from rgr.backends import locate
from rgr.backends.base import backend_binaries
from rgr.base.errors import RgrError
from rgr.base.installed import install_extra
from rgr.base.outcome import Heading, Outcome
from rgr.branches.sealed_gate import sealed_gate
from rgr.check.gate import GateResult, gate_argvs
from rgr.commands.verify import refusal_data, refusal_lines, result_lines
from rgr.ecosystems import registry
from rgr.ecosystems.python import equivalence
from rgr.ecosystems.python.pytest_runner import project_virtualenv
from rgr.loop.starting import agent_refusal, make_backend, start_refusals
from rgr.loop.summaries import tests_summary
from rgr.sandbox.explain import Diagnosis, missing_program
from rgr.sandbox.sealer import Sealer
from rgr.sandbox.toolchain import VERSION_FILES, home_relative
from rgr.store import acceptance_store
from rgr.store.workspace import Workspace


@dataclass(frozen=True)
class Resolved:
    """One command's program: where it is inside the sandbox and outside."""

    role: str  # "test", "gate", "agent"
    name: str
    inside: str | None
    outside: str | None

    def as_dict(self) -> dict[str, str | None]:
        return {"role": self.role, "name": self.name, "inside": self.inside,
                "outside": self.outside}


def doctor(ws: Workspace) -> Outcome[dict[str, object]]:
    ws = ws.pinned()
    sealer, result, refused = sealed_gate(ws, "fast", quiet=True)
    programs = _resolve(ws, sealer)
    problems = [_missing(ws, sealer, p) for p in programs
                if p.role != "agent" and p.inside is None]
    stops = start_refusals(ws)
    ok = refused is None and not problems and not stops
    # The agent CLI is the machine's, not the project's: a warning in the run's words,
    # as the other warnings, which leave the project's verdict alone.
    agent = agent_refusal(ws)
    warnings = [*_outside_environment(ws, programs),
                *([] if agent is None else [Diagnosis(
                    f"`rgr run` would stop at its agent: {agent.message}", agent.hint or "")])]
    data = {
        "ok": ok,
        "repository": str(ws.root),
        "testCommand": list(sealer.test_command.argv),
        "testCommandSource": sealer.test_command.source,
        "sandbox": sealer.note().model_dump(mode="json", by_alias=True),
        "allowList": [{"path": p, "why": why} for p, why in sealer.allow_list()],
        "examinerStoreShownBy": (None if (over := sealer.shown_over(
            acceptance_store.state_root(ws.env))) is None else str(over)),
        "generated": [f.as_dict() for f in sealer.generated_files()],
        "programs": [p.as_dict() for p in programs],
        "problems": [{"problem": d.problem, "fix": d.fix} for d in problems],
        "warnings": [{"problem": d.problem, "fix": d.fix} for d in warnings],
        "equivalence": {"crossHair": equivalence.version()},
        "tests": tests_summary(result.tests).model_dump(mode="json", by_alias=True),
        "diagnosis": None if refused is None else {"problem": refused.message,
                                                   "fix": refused.hint},
        "startRefusals": refusal_data(stops),
    }
    data["appliedNote"] = sealer.applied_note
    # a writable copy rgr applies itself: said before anything else
    first = [] if sealer.applied_note is None else [sealer.applied_note]
    return Outcome(lambda: [*first, *_text(ws, sealer, programs, problems, warnings, result,
                                           refused),
                            *refusal_lines(stops)],
                   data, exit_code=0 if ok else 1)


def _resolve(ws: Workspace, sealer: Sealer) -> list[Resolved]:
    """Each command's program, resolved inside a sealed checkout of HEAD (by the
    sandbox's own ``command -v``) and outside (on the user's PATH)."""
    wanted = [("test", sealer.test_command.argv[0]),
              *(("gate", argv[0]) for argv in gate_argvs(ws.config, "full"))]
    inside = sealer.which_inside([name for _, name in wanted])
    out = [Resolved(role, name, inside.get(name), shutil.which(name, path=ws.env.get("PATH")))
           for role, name in wanted]
    try:
        backend = make_backend(ws)
    except Exception as exc:
        out.append(Resolved("agent", f"({exc})", None, None))
        return out
    for name in backend_binaries(backend):
        # Found where rgr finds agent CLIs (PATH, ~/.local/bin, npm's prefix); its own
        # installation is shown in the agent's sandbox whatever it is.
        found = name if "/" in name else locate.find_cli(name, ws.env)
        out.append(Resolved("agent", name, found, found))
    return out


def _outside_environment(ws: Workspace, programs: list[Resolved]) -> list[Diagnosis]:
    """The test command's program, found inside but outside the project's own
    virtualenv: its tests run on another interpreter than the one the project's
    dependencies are installed in (a system pytest on another Python), which rgr runs
    as told but never without saying so."""
    venv = project_virtualenv(ws.root)
    if venv is None:
        return []
    out = []
    for program in programs:
        where = program.inside
        if program.role != "test" or where is None:
            continue
        # inside, the working copy (and its venv) is at the repository's path too
        if where.startswith((f"{venv}/", f"{ws.root / venv}/")):
            continue
        out.append(Diagnosis(
            f"the test command's {program.name} is {where}, outside the project's "
            f"virtualenv {venv}: the tests run on that interpreter, not on the one the "
            "project's dependencies are installed in",
            f"install the test runner into {venv}, or set test_command in tdd.toml to run "
            f"it from there (e.g. `{venv}/bin/python -m ...`)"))
    return out


def _missing(ws: Workspace, sealer: Sealer, program: Resolved) -> Diagnosis:
    return missing_program(program.name, sealer.toolchain, ws.root, ws.env,
                           ws.config.sandbox.detect, sealer.test_command.setting)


def _store_line(ws: Workspace, sealer: Sealer) -> str:
    """Where the examiner keeps its tests, and whether any sandbox of the run sees it."""
    store = acceptance_store.state_root(ws.env)
    over = sealer.shown_over(store)
    where = home_relative(store, ws.env)
    if over is None:
        return f"{where}: out of every sandbox's sight"
    return f"{where}: SHOWN ({acceptance_store.exposed(store, over)})"


def _equivalence_line() -> str:
    """Whether the mutation gate can decide a Python survivor's equivalence."""
    found = equivalence.version()
    if found is None:
        return ("CrossHair not installed: Python survivors are not checked for "
                f"equivalence ({install_extra('equivalence')})")
    return (f"CrossHair {found}: Python survivors are checked for equivalence "
            "(rgr.ecosystems.python.equivalence)")


def _of_another_ecosystem(skipped: str) -> bool:
    """Is this "not shown" line a tool home of an ecosystem the project does not use
    (rgr.sandbox.toolchain's words)?"""
    return ": the project uses no " in skipped


def _text(ws: Workspace, sealer: Sealer, programs: list[Resolved], problems: list[Diagnosis],
          warnings: list[Diagnosis], result: GateResult,
          refused: RgrError | None) -> list[str | Heading]:
    """What a person reads: what the sandbox shows and why, each program, the test run."""
    note = sealer.note()

    def tilde(path: str) -> str:
        return home_relative(path, ws.env)

    out: list[str | Heading] = [
        Heading("rgr doctor", f": {ws.root}"),
        f"  test command  {' '.join(sealer.test_command.argv)} "
        f"({sealer.test_command.source})",
    ]
    # CrossHair judges survivors of code rgr's line tracer runs under (Python's runners):
    # only there is the equivalence line (and its install hint) of use.
    if registry.traced(sealer.test_command.runner):
        out.append(f"  equivalence   {_equivalence_line()}")
    if not note.enabled:
        out += ["  sandbox       OFF: agents and test runs are not confined",
                "found (its variables set, its dependency folders linked into each "
                "working copy):"]
    else:
        out += [f"  sandbox       {note.bubblewrap or 'bubblewrap'}",
                "shown read-only inside (and why):"]
    if not note.shown:
        out.append("  nothing beyond the system, rgr and the agent CLI")
    for shown in note.shown:
        where = f" → also at <working copy>/{shown.inside}" if shown.inside else ""
        out.append(f"  {tilde(shown.path)}  {shown.why}{where}")
    out += [f"  {tilde(alias)}  the working copy again, at the repository's path "
            "(absolute paths a virtualenv recorded lead into it)"
            for alias in (note.aliases if note.enabled else ())]
    if note.env:
        out.append(f"variables set inside: {', '.join(note.env)}")
    if note.path_prefix:
        out.append("first on PATH inside: " + ", ".join(tilde(p) for p in note.path_prefix))
    out += [f"copied into the sandbox's HOME: ~/{copied}" if copied in VERSION_FILES else
            f"copied into the sandbox's HOME, its credential lines left out: ~/{copied}"
            for copied in note.home_files]
    # A home of an ecosystem the project does not use (~/.m2 in a Python project) is
    # not shown and needs no word here; the JSON keeps every line.
    out += [f"not shown: {skipped}" for skipped in note.skipped
            if not _of_another_ecosystem(skipped)]
    if note.enabled:
        out.append("what every sandbox of the run can read of this machine (the allow-list, "
                   "in the order it is built):")
        out += [f"  {tilde(path)}  {why}" for path, why in sealer.allow_list()]
        out.append(f"  examiner's store  {_store_line(ws, sealer)}")
    files = sealer.generated_files()
    if files:
        out.append("copied read-only into every checkout from your working tree "
                   "(generated, ignored by git; [sandbox] show_generated / "
                   "hide_generated change it):")
    out += [f"  {item.path}  {item.why}" for item in files]
    out.append("programs:")
    for program in programs:
        missing = ("NOT FOUND (on PATH, in ~/.local/bin, in npm's prefix)"
                   if program.role == "agent" else "NOT FOUND inside")
        inside = tilde(program.inside) if program.inside else missing
        out.append(f"  {program.role:<6} {program.name} → {inside}")
    out += [f"error: {problem.problem}\n  fix: {problem.fix}" for problem in problems]
    out += [f"warning: {warning.problem}\n  fix: {warning.fix}" for warning in warnings]
    out.append("test run (as `rgr run` runs it: a pristine checkout of HEAD, "
               + ("sealed):" if note.enabled else "NOT sealed):"))
    return out + result_lines(result, refused)
