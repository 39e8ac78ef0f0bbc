"""Reading the handoff history at git's speed: ``table`` answers ``rgr history``'s table
before the CLI loads, ``rows`` builds the validated JSON rows, ``cache`` keeps them by
note blob id (filled by reads and by every note rgr writes). ``rgr.commands.history``
is the command that uses them."""
