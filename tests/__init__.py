"""ruma's test suite, in folders like the code it tests; ``support/`` holds the harnesses and the
independent oracles the tests share, ``data/`` the stores an older ruma wrote."""
