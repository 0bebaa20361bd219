"""Alembic migrations of the ruma catalog."""
