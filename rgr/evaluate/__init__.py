"""`rgr eval`: the same tasks with and without rgr, judged by tests no agent saw."""
