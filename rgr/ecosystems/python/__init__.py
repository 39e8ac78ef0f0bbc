"""Python: pytest (pytest_runner) and unittest (unittest_runner), with the plugin and the
reporter rgr copies into each run (pytest_own_outcomes, unittest_reporter)."""
