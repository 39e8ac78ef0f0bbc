"""rgr: strict test-driven development for AI coding agents."""

__version__ = "0.1.0"
