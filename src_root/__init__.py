"""ruma: a shared, persistent database of combinatorial-game values for sowing games.

May import: nothing (``__version__`` here is for every package to import).
"""

__version__ = "0.1.0"
