"""Sweeps: the driver, the tables shared between worker processes, censuses streamed."""
