"""The experiment runner: experiment files, plans, process execution, the SQLite store."""
