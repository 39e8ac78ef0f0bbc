"""Merge-fix mode: a finished job whose rebase conflicted, resolved by sealed agent
sessions and judged before its base branch moves.

engine.py   the merge left for the agent, its ``Work`` for the attempt kernel, the verdict
"""
