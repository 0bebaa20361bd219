"""Families of positions: parametrised templates that theorems quantify over, and every position of
a row-of-pots ruleset up to a number of seeds, walked once per normalisation class.

- ``templates``, ``expr``, ``domains``: families with integer parameters (``{1^n 2}``), their
  parameter domains and the small expressions both are written in;
- ``classes``: a family's normalisation classes (raw counts, simplest members); ``order``: the cells
  and order of a parallel sweep; ``packets``: what a sweep worker values and sends back;
  ``census``: per value, how many positions have it and the simplest ones.

May import: the standard library, ``ruma.engine.errors``, ``ruma.engine.cgt``,
``ruma.engine.rulesets`` and ``ruma.engine.memo``.
"""
