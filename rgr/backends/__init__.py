"""The agent CLIs rgr drives, one module each (claude, codex), behind one protocol
(rgr.backends.base). Import from the modules: this package imports nothing, so that
importing one backend never loads the others."""
