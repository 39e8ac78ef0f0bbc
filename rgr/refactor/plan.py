"""The refactor plan: the planner's structured answer (seed 000 §15.1) and a deterministic
validator that answers with error codes (seed 004 style), which go back to the planner.

Error codes (every one blocks the plan):

    E000  the plan has no batches
    E001  a batch id is not a lowercase slug (a-z, 0-9, '-', at most 40 characters)
    E002  two batches share an id
    E003  more batches than [refactor].max_batches
    E004  a diff budget outside 1..[refactor].max_diff_lines
    E005  a scope glob matches no file at the plan's commit
    E006  a scope glob matches rgr's own files (tdd.toml, .rgr/)
    E007  an operation rgr does not know
    E008  two batches' scopes overlap while [refactor].allow_overlap is false
    E009  a rename batch without a valid rename (file in scope, symbol defined there,
          new name an identifier, every non-test file that imports the symbol in scope),
          or a rename mixed with other operations; test files that use the symbol need
          not be in scope: a pure rename in a test is allowed (checks.py)
    E010  the batches are not in seed 000 §11.2's risk order (by operation class)
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from rgr.base.config import DEFAULT_TEST_FILE_GLOBS, GlobSet, RefactorConfig
from rgr.refactor.index import RepoIndex

#: Seed 000 §11.2: the order batches must come in, by the riskiest operation they allow.
OPERATION_CLASS: dict[str, int] = {
    "format": 1,
    "imports": 2, "dead-code": 2,
    "rename": 3, "extract": 3, "inline": 3, "move": 3, "dedupe": 3, "simplify": 3,
    "tests": 4,
    "restructure": 5,
    "api": 6,
}
OPERATIONS = tuple(OPERATION_CLASS)

_ID = re.compile(r"[a-z0-9][a-z0-9-]{0,39}")
_IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


class _Wire(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class RenameSpec(_Wire):
    """A rename rgr carries out with rope: ``symbol`` defined at top level of ``path``."""

    path: str = Field(min_length=1, max_length=300)
    symbol: str = Field(min_length=1, max_length=200)
    new_name: str = Field(min_length=1, max_length=200)


class Batch(_Wire):
    id: str = Field(min_length=1, max_length=60)
    goal: str = Field(min_length=1, max_length=300)
    scope_globs: list[str] = Field(min_length=1, max_length=30)
    allowed_operations: list[str] = Field(min_length=1, max_length=12)
    diff_budget_loc: int
    risk_score: int = Field(ge=0, le=100)
    verifier_level: Literal["fast", "full"] = "fast"
    notes: str = Field(default="", max_length=2000)
    rename: RenameSpec | None = None

    @property
    def risk_class(self) -> int:
        return max((OPERATION_CLASS.get(op, 99) for op in self.allowed_operations), default=0)

    @property
    def allows_tests(self) -> bool:
        return "tests" in self.allowed_operations

    @property
    def allows_api(self) -> bool:
        return "api" in self.allowed_operations

    @property
    def is_rename(self) -> bool:
        return self.allowed_operations == ["rename"] and self.rename is not None

    def attempts(self, configured: int) -> int:
        """How many attempts the batch gets. A rope rename is deterministic: run again
        on the same base it does the same thing, so a failed one is not repeated."""
        return 1 if self.is_rename else configured


class RefactorPlanOutput(_Wire):
    """The refactor planner's answer: ordered batches, and a one-line summary."""

    summary: str = Field(default="", max_length=1000)
    batches: list[Batch]


@dataclass(frozen=True)
class PlanError:
    code: str
    batch_id: str | None
    field: str | None
    message: str

    def __str__(self) -> str:
        where = f" (batch {self.batch_id}" + (f", {self.field})" if self.field else ")") \
            if self.batch_id else (f" ({self.field})" if self.field else "")
        return f"[{self.code}]{where} {self.message}"


PROTECTED = GlobSet(["tdd.toml", ".rgr/**"])


def scope_files(batch: Batch, paths: Iterable[str]) -> list[str]:
    globs = GlobSet(batch.scope_globs)
    return [p for p in paths if globs.matches(p)]


def validate_plan(plan: RefactorPlanOutput, index: RepoIndex, caps: RefactorConfig,
                  is_test_file: Callable[[str], bool] | None = None) -> list[PlanError]:
    """``is_test_file``: the project's (Config.is_test_file); default: rgr's default globs."""
    errors: list[PlanError] = []
    tests = is_test_file or GlobSet(DEFAULT_TEST_FILE_GLOBS).matches
    batches = plan.batches
    paths = sorted(index.files)
    if not batches:
        return [PlanError("E000", None, "batches", "the plan has no batches; propose at least "
                          "one small batch")]
    if len(batches) > caps.max_batches:
        errors.append(PlanError("E003", None, "batches", f"{len(batches)} batches, the cap is "
                                f"{caps.max_batches}: merge or drop the least valuable ones"))
    seen: set[str] = set()
    highest = 0
    highest_id = ""
    matched: dict[str, list[str]] = {}
    for batch in batches:
        bid = batch.id
        if not _ID.fullmatch(bid):
            errors.append(PlanError("E001", bid, "id", "use a lowercase slug such as "
                                    "'dedupe-auth' (a-z, 0-9, '-', at most 40 characters)"))
        if bid in seen:
            errors.append(PlanError("E002", bid, "id", "this id is used by an earlier batch"))
        seen.add(bid)
        if not 1 <= batch.diff_budget_loc <= caps.max_diff_lines:
            errors.append(PlanError("E004", bid, "diff_budget_loc", f"{batch.diff_budget_loc} "
                                    f"lines; it must be between 1 and {caps.max_diff_lines}"))
        unknown = [op for op in batch.allowed_operations if op not in OPERATION_CLASS]
        if unknown:
            errors.append(PlanError("E007", bid, "allowed_operations", f"unknown {unknown}; "
                                    f"known: {', '.join(OPERATIONS)}"))
        files: list[str] = []
        for glob in batch.scope_globs:
            hits = [p for p in paths if GlobSet([glob]).matches(p)]
            if not hits:
                errors.append(PlanError("E005", bid, "scope_globs", f"{glob!r} matches no "
                                        "file (globs are anchored at the root; use '**/' to "
                                        "match in any directory)"))
            if any(PROTECTED.matches(p) for p in hits) or PROTECTED.matches(glob):
                errors.append(PlanError("E006", bid, "scope_globs", f"{glob!r} covers "
                                        "tdd.toml or .rgr/, which no batch may change"))
            files.extend(hits)
        matched[bid] = sorted(set(files))
        errors.extend(_check_rename(batch, index, matched[bid], tests))
        if not unknown:
            if batch.risk_class < highest:
                errors.append(PlanError("E010", bid, "allowed_operations", f"operation class "
                                        f"{batch.risk_class} comes after batch {highest_id} "
                                        f"(class {highest}); order: format, imports/dead-code, "
                                        "renames/extracts, tests, restructures, api"))
            if batch.risk_class > highest:
                highest, highest_id = batch.risk_class, bid
    if not caps.allow_overlap:
        ids = list(matched)
        for i, first in enumerate(ids):
            for second in ids[i + 1:]:
                shared = set(matched[first]) & set(matched[second])
                if shared:
                    errors.append(PlanError("E008", second, "scope_globs", f"overlaps batch "
                                            f"{first} on {sorted(shared)[:3]}; "
                                            "[refactor].allow_overlap is false"))
    return errors


def _check_rename(batch: Batch, index: RepoIndex, in_scope: list[str],
                  is_test_file: Callable[[str], bool]) -> list[PlanError]:
    bid = batch.id
    has_op = "rename" in batch.allowed_operations
    if batch.rename is None:
        return []
    if not has_op or len(batch.allowed_operations) != 1:
        return [PlanError("E009", bid, "allowed_operations", "a batch with a rename must "
                          "allow exactly ['rename']: rgr does it with rope, alone")]
    spec = batch.rename
    entry = index.files.get(spec.path)
    if entry is None or entry.module is None:
        return [PlanError("E009", bid, "rename.path", f"{spec.path!r} is not a Python file")]
    if spec.path not in in_scope:
        return [PlanError("E009", bid, "rename.path", f"{spec.path!r} is outside the scope")]
    if not any(s.name == spec.symbol and s.kind in ("function", "class", "variable")
               for s in entry.symbols):
        return [PlanError("E009", bid, "rename.symbol", f"{spec.symbol!r} is not defined at "
                          f"the top level of {spec.path}")]
    if not _IDENTIFIER.fullmatch(spec.new_name):
        return [PlanError("E009", bid, "rename.new_name", f"{spec.new_name!r} is not a "
                          "Python identifier")]
    # rope renames every use; the batch's checks then refuse a changed file outside the
    # scope, unless it is a test that only calls the new name (checks._renamed_in_test).
    users = sorted(path for path, e in index.files.items()
                   if f"{entry.module}.{spec.symbol}" in e.imports
                   and path not in in_scope and not is_test_file(path))
    if users:
        return [PlanError("E009", bid, "scope_globs", f"{', '.join(users[:3])} import "
                          f"{spec.symbol!r} but are outside the scope; rope renames every "
                          "use, so add them to scope_globs")]
    return []


def revision_brief(errors: list[PlanError]) -> str:
    lines = ["Your previous plan was rejected by rgr's validator. Fix every error and answer "
             "with the whole corrected plan:"]
    lines += [f"- {e}" for e in errors]
    return "\n".join(lines)
