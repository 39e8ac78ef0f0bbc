"""The loop layer: the attempt kernel and what it records of agent sessions."""
