"""Outages of the database or the broker, answered 503 with Retry-After (middleware.py)."""
