"""``rgr demo``: the slugify kata, replayed by the scripted model through the real claude.

The kata's session scripts (:mod:`rgr.demo.kata`) and the isolated environment that
points claude at the local server (:mod:`rgr.demo.env`) ship in the package so that
the demo needs nothing but the installed rgr and a ``claude`` binary; the end-to-end
tests import the same scripts.
"""
