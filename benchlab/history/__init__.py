"""The history layer: benchmark results across commits, and the analyses of their series.

`store.py` keeps every measurement with its levels in one SQLite file (WAL),
keyed by benchmark, metric, machine and commit; `check.py` finds the changes
of each series and judges them with a ratio CI; `compare.py` compares one commit
with its branch's baseline segment; `show.py` gives the series per commit. See
docs/history.md.
"""
