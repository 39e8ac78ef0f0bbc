"""Rust, apart from its runner (runner): an acceptance file beside a test file gets
the file's own suffix (an integration test in tests/)."""

from __future__ import annotations

from rgr.ecosystems.language import Language

LANGUAGE = Language("Rust", (".rs",))
