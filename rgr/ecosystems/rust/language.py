"""Rust, apart from its runner (runner): an acceptance file beside a test file gets
the file's own suffix (an integration test in tests/)."""

from __future__ import annotations

from rgr.ecosystems.language import Language
from rgr.ecosystems.rust.cheats import IDIOMS

LANGUAGE = Language("Rust", (".rs",), cheats=IDIOMS, skip_markers=(r"#\[ignore\b",))
