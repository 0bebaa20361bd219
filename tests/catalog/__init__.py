"""The SQL catalog: migrations and operations."""
