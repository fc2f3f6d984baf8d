"""benchlab.stats."""
