"""Outages of the database, the broker or the media's object store, answered 503 with
Retry-After (middleware.py)."""
