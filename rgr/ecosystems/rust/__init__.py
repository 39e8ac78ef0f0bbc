"""Rust: ``cargo test`` (runner), its test targets (cargo_targets) and workspaces
(cargo_workspace)."""
