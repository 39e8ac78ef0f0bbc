"""The checks: what rgr judges an agent's work by (test runs, runners, guards, gates)."""
