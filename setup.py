"""Build of ruma's compiled engine core; the package metadata is in pyproject.toml.

The extension is ``optional``: without a C compiler (or Python headers) ``pip install`` still
succeeds and ruma runs its pure-Python engine (``ruma.engine.native`` explains the choice).
"""

from setuptools import Extension, setup

SOURCES = ["module.c", "search.c", "search_type.c", "search_batch.c", "search_memo.c", "search_shared.c", "body_sort.c",
           "rows.c", "sowing.c", "wari.c", "table.c", "parse.c", "dyadic.c", "arena.c", "canon.c", "algebra.c", "kernel.c",
           "memo.c", "enum.c", "shared.c", "shared_type.c", "shared_games.c", "wire.c"]
HEADERS = ["hugemem.h", "core.h", "rows.h", "rows_internal.h", "table.h", "parse.h", "search.h", "kernel.h", "dyadic.h",
           "arena.h", "gkernel.h", "memo.h", "shared.h", "shared_games.h", "shared_layout.h", "frame.h", "body_sort.h"]

LMDB = ["mdb.c", "midl.c"]

setup(
    ext_modules=[
        Extension(
            "ruma.engine.native._core",
            sources=[f"engine/native/{name}" for name in SOURCES],
            depends=[f"engine/native/{name}" for name in HEADERS],
            # hidden symbols and link-time optimisation: the files' small helpers (rows_begin,
            # rows_commit, the table's) are inlined across files instead of called through the PLT
            extra_compile_args=["-fvisibility=hidden", "-flto"],
            extra_link_args=["-flto"],
            optional=True,
        ),
        Extension(  # the per-entry byte work of the store's bulk writes (store.bulk falls back to Python)
            # and the writer process's transactions, on the LMDB that py-lmdb bundles (third_party/lmdb)
            "ruma.server.store._native",
            sources=["server/store/native.c", "server/store/iterators.c", "server/store/lmdb.c", "server/store/interning.c",
                     *(f"third_party/lmdb/{name}" for name in LMDB)],
            # (the batch frames it reads and writes are the engine's format: engine/native/frame.h)
            depends=["server/store/records.h", "server/store/interning.h", "engine/native/frame.h",
                     "third_party/lmdb/lmdb.h", "third_party/lmdb/midl.h"],
            include_dirs=["server/store", "engine/native", "third_party/lmdb"],
            optional=True,
        ),
    ]
)
