"""The bottom layer: processes, errors, configuration, crash points, terminal output.

It imports nothing of rgr's above it."""
