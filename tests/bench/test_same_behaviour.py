"""bench/same_behaviour.py's masks and comparison (bench/behaviour_masks.py): what must
differ between two runs of the same kata is masked, and nothing that tells behaviour is."""

from __future__ import annotations

import json
import sys

from tests.conftest import REPO_ROOT

sys.path.insert(0, str(REPO_ROOT / "bench"))
from behaviour_masks import (
    Masker,
    first_differences,
    masked_notes,
    schema_changes,
    value_changes,
)

RUN = "1f79acf4-38d8-4701-8425-560dd854f913"
SESSION = "c5c1a6a8-ea24-47e7-9109-b92f21f7cc9e"
C1 = "6dca4121a29162a2f1f7bfb1439f8ad8e46bfc39"
C2 = "a49f6afe585819d3fb88f39c541473b5e724a465"


def event(**fields: object) -> str:
    return json.dumps({"type": "test_run", "ts": "2026-11-27T01:31:33.202Z", **fields})


def masker(*commits: str) -> Masker:
    return Masker({"/work/wt-x": "<rgr>", "/tmp/rgr-same-abcd1234/run": "<work>"}, commits)


def test_times_durations_ports_and_temp_names_are_masked_and_the_record_stays_json() -> None:
    line = event(durationS=1.697, durationMs=758, delayMs=560.5527305591447, pid=4242,
                 command=["pytest", "--junitxml=/dev/shm/rgr-0/77b34c7a661b/verify-1gj5y_r_"
                                    "/tmp/rgr-tests-whvhv1uh/junit.xml"],
                 ref=f"refs/rgr/attempts/{RUN}/GREEN-c1-a1-1795743102431",
                 error="check your inference gateway (127.0.0.1:41100)",
                 startedAt="2026-11-27T01:31:55Z", rgrVersion="0.1.0")
    masked = masker().mask(line)
    record = json.loads(masked)
    assert record["ts"] == record["startedAt"] == "<ts>"
    assert record["durationS"] == record["durationMs"] == record["delayMs"] == "<dur>"
    assert record["pid"] == "<pid>" and record["rgrVersion"] == "<version>"
    assert record["command"][1] == ("--junitxml=/dev/shm/rgr-0/77b34c7a661b/verify-<tmp>"
                                    "/tmp/rgr-tests-<tmp>/junit.xml")
    assert record["ref"] == "refs/rgr/attempts/<uuid:1>/GREEN-c1-a1-<epoch>"
    assert record["error"].endswith("(127.0.0.1:<port>)")


def test_the_runners_own_timing_in_quoted_output_is_masked_and_its_counts_are_not() -> None:
    text = masker().mask("```\n.    [100%]\n1 passed, 2 failed in 0.02s\n```")
    assert text == "```\n.    [100%]\n1 passed, 2 failed in <dur>s\n```"


def test_what_tells_behaviour_is_not_masked() -> None:
    masked = masker().mask(event(passed=2, failed=0, inputTokens=18836, costUsd=0.09988,
                                 exitCode=1, outputFile="tests/012.txt"))
    record = json.loads(masked)
    assert (record["passed"], record["failed"], record["inputTokens"], record["costUsd"],
            record["exitCode"], record["outputFile"]) == (2, 0, 18836, 0.09988, 1,
                                                           "tests/012.txt")


def test_paths_are_replaced_longest_first() -> None:
    text = masker().mask("/tmp/rgr-same-abcd1234/run/kata and /work/wt-x/prompts/tester.md")
    assert text == "<work>/kata and <rgr>/prompts/tester.md"


def test_ids_are_renamed_by_first_appearance_and_short_forms_follow_their_commit() -> None:
    one = masker(C1, C2)
    text = one.mask(f"{SESSION} {RUN} {C2} {C1} {C2[:8]} {C1[:12]} {SESSION}")
    assert text == "<uuid:1> <uuid:2> <commit:1> <commit:2> <commit:1> <commit:2> <uuid:1>"


def test_a_hex_word_that_is_no_commit_stays_content_addressed() -> None:
    # tree and blob ids depend on content only: two runs must agree on them
    assert masker(C1).mask("tdd.toml e10b3418") == "tdd.toml e10b3418"


def test_swapped_references_still_differ_after_renaming() -> None:
    before = masker(C1, C2).mask(f'{{"commit": "{C1}", "baseCommit": "{C2}"}}\n'
                                 f'{{"commit": "{C2}"}}')
    after = masker(C1, C2).mask(f'{{"commit": "{C1}", "baseCommit": "{C2}"}}\n'
                                f'{{"commit": "{C1}"}}')
    assert before != after
    assert value_changes(before.replace("}", ', "type": "x"}'),
                         after.replace("}", ', "type": "x"}'), "events") == [
        "record 2 (event x) commit: '<commit:2>' -> '<commit:1>'"]


def test_notes_named_by_the_events_come_first_in_label_order() -> None:
    one = masker(C1, C2)
    one.mask(f'{{"commit": "{C2}"}}')
    text = masked_notes(one, {C1: '{"phase": "RED"}', C2: '{"phase": "PLAN"}'})
    assert text == ('=== note on <commit:1>\n{"phase": "PLAN"}\n'
                    '=== note on <commit:2>\n{"phase": "RED"}\n')


def notes(*bodies: dict[str, object]) -> str:
    return "".join(f"=== note on <commit:{n}>\n{json.dumps(b, indent=2)}\n"
                   for n, b in enumerate(bodies, start=1))


def test_a_field_only_one_side_writes_is_named_and_set_aside_from_the_values() -> None:
    before = notes({"phase": "RED", "adequacy": None})
    after = notes({"phase": "RED", "adequacy": None, "landing": None,
                   "agent": {"inputTokens": 5}})
    assert schema_changes(before, after, "notes") == ["note: added agent, agent.inputTokens, "
                                                      "landing"]
    assert value_changes(before, after, "notes") == []


def test_a_changed_value_is_named_by_its_key_path() -> None:
    before = notes({"phase": "GREEN", "tests": {"passed": 1, "failing": []}})
    after = notes({"phase": "GREEN", "tests": {"passed": 2, "failing": ["t"]}})
    assert value_changes(before, after, "notes") == [
        'record 1 (note) tests.failing: [] -> ["t"]',
        "record 1 (note) tests.passed: 1 -> 2"]


def test_events_missing_or_added_are_named_by_type() -> None:
    before = "\n".join([event(seq=1), json.dumps({"type": "phase_done"})])
    after = "\n".join([event(seq=1), json.dumps({"type": "retry"}),
                       json.dumps({"type": "phase_done"})])
    assert value_changes(before, after, "events") == [
        "records 2-1 before vs 2-2 after: insert [] -> ['event retry']"]
    assert schema_changes(before, after, "events") == ["event retry: only after"]
    assert '+{"type": "retry"}' in first_differences(before, after)
