"""The git layer: the repository, the handoff notes and their schema, scratch copies,
locks, the workspace, history, the agent definitions it carries. The only importer of
pygit2 (rgr.store.objects names the object types the layers above handle)."""
