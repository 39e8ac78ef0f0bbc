"""Go: ``go test`` (runner)."""
