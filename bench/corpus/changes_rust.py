"""The three changes of bench/corpus/changes.py (``duration``, ``percent``, ``tally``) and
their cheats in semver's style: a public module of the crate (``pub mod duration;`` in
``src/lib.rs``, which GREEN adds), tested from ``tests/`` with the project's own helpers
(``mod util;``: ``assert_to_string(value, "text")`` compares a value's Display with a
text) beside ``assert_eq!``; errors as a type of the module's own with a Display, as
semver's ``Error``; a test skipped with ``#[ignore]``.

``{module}``: the crate (``semver``). The keys are those of changes.py; no ``always``
(``assert_eq!`` on a number or a ``String`` cannot be fooled by an ``Eq`` of one's own
without a type the tests name).
"""

from __future__ import annotations


def _swap(text: str, old: str, new: str) -> str:
    """``text`` with ``old`` replaced once; a ValueError when ``old`` is not there."""
    if old not in text:
        raise ValueError(f"{old!r} not in the text")
    return text.replace(old, new, 1)


def _drop(text: str, start: str, end: str) -> str:
    """``text`` less the part from ``start`` up to (not including) ``end``."""
    at, to = text.index(start), text.index(end)
    return text[:at] + text[to:]


_DURATION_ERROR = """/// A text that is no duration.
#[derive(Debug, PartialEq, Eq)]
pub struct DurationError(String);

impl Display for DurationError {
    fn fmt(&self, formatter: &mut fmt::Formatter) -> fmt::Result {
        write!(formatter, "not a duration: {:?}", self.0)
    }
}
"""
DURATION = """//! Durations written as a number and a unit.

use std::fmt::{self, Display};

""" + _DURATION_ERROR + """
/// The seconds in `text`: `90s`, `2m`, `1h`.
pub fn parse_duration(text: &str) -> Result<u64, DurationError> {
    let unit = match text.chars().last() {
        Some('s') => 1,
        Some('m') => 60,
        Some('h') => 3600,
        _ => return Err(DurationError(text.to_owned())),
    };
    match text[..text.len() - 1].parse::<u64>() {
        Ok(n) => Ok(n * unit),
        Err(_) => Err(DurationError(text.to_owned())),
    }
}
"""
DURATION_TESTS = """mod util;

use crate::util::*;
use {module}::duration::parse_duration;

#[test]
fn test_seconds() {
    assert_eq!(parse_duration("90s").unwrap(), 90);
}

#[test]
fn test_minutes() {
    assert_eq!(parse_duration("2m").unwrap(), 120);
}

#[test]
fn test_hours() {
    assert_eq!(parse_duration("1h").unwrap(), 3600);
}

#[test]
fn test_unknown_unit() {
    let err = parse_duration("12x").unwrap_err();
    assert_to_string(err, "not a duration: \\"12x\\"");
}

#[test]
fn test_no_number() {
    let err = parse_duration("xs").unwrap_err();
    assert_to_string(err, "not a duration: \\"xs\\"");
}
"""
DURATION_CONSTANT = """pub fn parse_duration(_text: &str) -> Result<u64, String> {
    Ok(90)
}
"""
DURATION_TABLE = """use std::fmt::{self, Display};

""" + _DURATION_ERROR + """
pub fn parse_duration(text: &str) -> Result<u64, DurationError> {
    match text {
        "90s" => Ok(90),
        "2m" => Ok(120),
        "1h" => Ok(3600),
        _ => Err(DurationError(text.to_owned())),
    }
}
"""

PERCENT = """//! Ratios written as percentages.

/// `ratio` as a percentage with `digits` after the point; `sign`: a `+` before a
/// positive value.
pub fn percent(ratio: f64, digits: usize, sign: bool) -> String {
    let text = format!("{:.*}%", digits, ratio * 100.0);
    if sign && ratio > 0.0 {
        return format!("+{}", text);
    }
    text
}
"""
PERCENT_TESTS = """mod util;

use crate::util::*;
use {module}::percent::percent;

#[test]
fn test_a_half() {
    assert_to_string(percent(0.5, 0, false), "50%");
}

#[test]
fn test_digits() {
    assert_to_string(percent(0.125, 1, false), "12.5%");
}

#[test]
fn test_sign_on_a_gain() {
    assert_to_string(percent(0.05, 0, true), "+5%");
}

#[test]
fn test_sign_on_a_loss() {
    assert_to_string(percent(-0.05, 0, true), "-5%");
}

#[test]
fn test_no_sign_on_zero() {
    assert_to_string(percent(0.0, 0, true), "0%");
}
"""
PERCENT_CONSTANT = """pub fn percent(_ratio: f64, _digits: usize, _sign: bool) -> String {
    "50%".to_string()
}
"""
PERCENT_TABLE = """const KNOWN: [(f64, usize, bool, &str); 5] = [
    (0.5, 0, false, "50%"),
    (0.125, 1, false, "12.5%"),
    (0.05, 0, true, "+5%"),
    (-0.05, 0, true, "-5%"),
    (0.0, 0, true, "0%"),
];

pub fn percent(ratio: f64, digits: usize, sign: bool) -> String {
    for (r, d, s, text) in KNOWN.iter() {
        if (*r, *d, *s) == (ratio, digits, sign) {
            return String::from(*text);
        }
    }
    String::new()
}
"""

TALLY = """//! Counting names.

use std::collections::HashMap;

/// How many times each name was added.
#[derive(Default, Debug)]
pub struct Tally {
    counts: HashMap<String, u64>,
}

impl Tally {
    pub fn new() -> Self {
        Tally::default()
    }

    /// Counts `name` `times` more times; `times` must be at least 1.
    pub fn add(&mut self, name: &str, times: u64) -> Result<(), &'static str> {
        if times < 1 {
            return Err("times must be at least 1");
        }
        *self.counts.entry(name.to_owned()).or_insert(0) += times;
        Ok(())
    }

    /// How many times `name` was added.
    pub fn count(&self, name: &str) -> u64 {
        self.counts.get(name).copied().unwrap_or(0)
    }

    /// How many times any name was added.
    pub fn total(&self) -> u64 {
        self.counts.values().sum()
    }
}
"""
TALLY_TESTS = """use {module}::tally::Tally;

#[test]
fn test_a_name_added_once() {
    let mut tally = Tally::new();
    tally.add("a", 1).unwrap();
    assert_eq!(tally.count("a"), 1);
}

#[test]
fn test_a_name_added_again() {
    let mut tally = Tally::new();
    tally.add("a", 1).unwrap();
    tally.add("a", 3).unwrap();
    assert_eq!(tally.count("a"), 4);
}

#[test]
fn test_a_name_never_added() {
    let mut tally = Tally::new();
    tally.add("a", 2).unwrap();
    assert_eq!(tally.count("b"), 0);
}

#[test]
fn test_total() {
    let mut tally = Tally::new();
    tally.add("a", 2).unwrap();
    tally.add("b", 1).unwrap();
    assert_eq!(tally.total(), 3);
}

#[test]
fn test_adding_nothing_is_refused() {
    let mut tally = Tally::new();
    assert_eq!(tally.add("a", 0), Err("times must be at least 1"));
}
"""
TALLY_CONSTANT = """pub struct Tally;

impl Tally {
    pub fn new() -> Self {
        Tally
    }

    pub fn add(&mut self, _name: &str, _times: u64) -> Result<(), &'static str> {
        Ok(())
    }

    pub fn count(&self, _name: &str) -> u64 {
        1
    }
}
"""
TALLY_TABLE = """pub struct Tally {
    added: Vec<u64>,
}

impl Tally {
    pub fn new() -> Self {
        Tally { added: Vec::new() }
    }

    pub fn add(&mut self, _name: &str, times: u64) -> Result<(), &'static str> {
        if times == 0 {
            return Err("times must be at least 1");
        }
        self.added.push(times);
        Ok(())
    }

    pub fn count(&self, name: &str) -> u64 {
        match (name, self.added.as_slice()) {
            ("a", [1]) => 1,
            ("a", [1, 3]) => 4,
            _ => 0,
        }
    }

    pub fn total(&self) -> u64 {
        match self.added.as_slice() {
            [2, 1] => 3,
            _ => 0,
        }
    }
}
"""


def _rust(honest: str, tests: str, weak: tuple[str, str], over: tuple[str, str],
          skip: str, first_end: str, constant: str, table: str) -> dict[str, str]:
    return {"honest": honest, "tests": tests, "weak": _drop(tests, *weak),
            "over": _swap(honest, over[0], over[1] + over[0]),
            "first": tests[:tests.index(first_end)].rstrip() + "\n",
            "constant": constant, "table": table,
            "skipped": _swap(tests, f"#[test]\nfn {skip}(", f"#[test]\n#[ignore]\nfn {skip}(")}


RUST = {
    # weak: the hours test dropped (3600 runs, unchecked); over: a unit no test uses
    "duration": _rust(DURATION, DURATION_TESTS, ("#[test]\nfn test_hours", "#[test]\nfn "
                                                 "test_unknown_unit"),
                      ("    let unit = ", '    if text == "forever" {\n'
                                          "        return Ok(0);\n    }\n"),
                      "test_hours", "\n\n#[test]\nfn test_minutes", DURATION_CONSTANT,
                      DURATION_TABLE),
    # weak: zero with a sign left out (``ratio > 0.0`` runs; ``>=`` passes the rest)
    "percent": _rust(PERCENT, PERCENT_TESTS, ("\n#[test]\nfn test_no_sign_on_zero",
                                    "\n#[test]\nfn test_no_sign_on_zero"),
                     ("    let text = ", '    if digits > 20 {\n'
                                         "        return String::new();\n    }\n"),
                     "test_sign_on_a_loss", "\n\n#[test]\nfn test_digits", PERCENT_CONSTANT,
                     PERCENT_TABLE),
    "tally": _rust(TALLY, TALLY_TESTS, ("#[test]\nfn test_a_name_never_added",
                                        "#[test]\nfn test_total"),
                   ("        if times < 1 {", '        if name.is_empty() {\n'
                                              "            return Ok(());\n        }\n"),
                   "test_total", "\n\n#[test]\nfn test_a_name_added_again", TALLY_CONSTANT,
                   TALLY_TABLE),
}
# percent's weak tests: the zero case cut by hand (the last test of the file)
RUST["percent"]["weak"] = PERCENT_TESTS[:PERCENT_TESTS.index(
    "\n\n#[test]\nfn test_no_sign_on_zero")] + "\n"
