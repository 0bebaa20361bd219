"""End to end: the README as written, the notebook in a real kernel, a minute's soak of the service."""
