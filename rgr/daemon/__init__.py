"""``rgr daemon``: a queue of features run by parallel workers, coordinated only through
git refs and notes (see rgr.daemon.queue for the layout)."""
