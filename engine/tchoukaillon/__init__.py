"""Tchoukaillon, the solitaire sowing game of Jones, Taalman and Tongen.

- ``board``: winning boards, b(n), N(ℓ); ``crt``: partial boards and the Chinese Remainder
  Theorem (Section 4); ``graphs``: Tchoukaillon on sowing graphs (Section 5).

May import: the standard library and ``ruma.engine.errors``.
"""
