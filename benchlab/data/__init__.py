"""benchlab.data."""
