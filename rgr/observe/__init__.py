"""Watching a run: events, the live view, artifacts, summary, report, limits."""
