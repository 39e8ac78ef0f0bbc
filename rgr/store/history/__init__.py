"""Reading the handoff history at git's speed: ``newest`` reads what ``rgr history``'s
table shows (drawn by rgr.commands.history_table, before the CLI loads too), ``rows``
builds the validated JSON rows, ``cache`` keeps them by note blob id (filled by reads
and by every note rgr writes). ``rgr.commands.history`` is the command that uses them."""

#: Set by ``rgr daemon`` for the ``rgr`` it runs in a job's clone: the git dir of the
#: daemon's repository, whose row cache also gets the row of each note the job writes
#: (the job pushes those notes there; rgr.store.history.cache.add_written).
ROWS_ALSO_IN = "RGR_HISTORY_ROWS_ALSO_IN"
