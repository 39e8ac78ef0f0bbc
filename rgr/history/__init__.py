"""Reading the handoff history at git's speed: ``table`` answers ``rgr history``'s table
before the CLI loads, ``cache`` keeps ``rgr history --json``'s rows by note blob id.
``rgr.commands.history`` is the command that uses both."""
