"""The engine: CGT algebra, rulesets, the evaluator and its searches, families, octal games,
Tchoukaillon, the compiled core against the reference."""
