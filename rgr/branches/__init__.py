"""The branch services: what happens to a branch once work on it is done.

integrate.py    a finished run fast-forwarded, proposed as a pull request, or left
landing.py      the sealed suite, gate and acceptance tests on the tree that would land
sealed_gate.py  the gate on a pristine, sealed checkout of HEAD, as a run sees it
rollback.py     the branch moved back to a noted commit, undoably
"""
