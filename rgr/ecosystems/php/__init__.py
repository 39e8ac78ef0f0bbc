"""PHP: PHPUnit (runner)."""
