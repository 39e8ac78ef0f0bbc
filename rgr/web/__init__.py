"""`rgr serve`: a local web view of the queue, the runs and the history (the ``web``
extra: Starlette, uvicorn, Jinja2).

It reads only git (refs, notes, commits) and the run folders, through the same readers
as `rgr queue`, `rgr show`, `rgr report` and `rgr history`, so a page agrees with them
at the same moment; it keeps nothing of its own. Its actions call the functions of
the CLI commands. Imported only by ``rgr serve`` (rgr.commands.serve).
"""
