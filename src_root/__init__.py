"""ruma: a shared, persistent database of combinatorial-game values for sowing games."""

__version__ = "0.1.0"
