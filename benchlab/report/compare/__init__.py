"""Every format of `compare`'s results but HTML: one comparison (CompareResult) and a suite
(SuiteResult); `formats.py` registers them (docs/architecture.md, "report/")."""
