"""Build of ruma's compiled engine core; the package metadata is in pyproject.toml.

The extensions are ``optional``: without a C compiler (or Python headers) ``pip install`` still
succeeds and ruma runs its pure-Python engine (``ruma.engine.native`` explains the choice). A
compiler that cannot do link-time optimisation (gcc without its LTO plugin: "could not run
lto-wrapper") builds them without it. An extension that cannot be built at all is said in one
line on pip's own output (the build runs in a subprocess whose output pip shows only with ``-v``),
and ``ruma --version`` and every evaluation command say so too.
"""

import os
import sys
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

LTO = "-flto"


def tell(message: str) -> None:
    """``message`` on this build's stderr and, where the build runs under pip (which shows its
    backend's output only with ``-v``), on pip's own stderr too."""
    line = f"ruma: {message}\n"
    sys.stderr.write(line)
    sys.stderr.flush()
    try:  # pip runs the build backend as its child: the parent's standard error is the user's
        # (appended: opened anew, a file pip's stderr is redirected to must not be truncated)
        with open(f"/proc/{os.getppid()}/fd/2", "a", encoding="utf-8") as parent:
            if not os.path.samefile(parent.fileno(), sys.stderr.fileno()):
                parent.write(line)
    except (OSError, ValueError):
        pass


def compile_in_parallel(compiler: Any) -> None:
    """Make ``compiler.compile`` compile its sources on as many threads as the machine has cores
    (each thread waits on its own compiler process): setuptools compiles an extension's sources one
    after another, and the compiled core has some thirty."""
    one_by_one = compiler.compile
    jobs = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)

    def compile(sources: list[str], *args: Any, **kwargs: Any) -> list[str]:
        if jobs < 2 or len(sources) < 2:
            return list(one_by_one(sources, *args, **kwargs))
        with ThreadPoolExecutor(jobs) as pool:
            parts = list(pool.map(lambda source: one_by_one([source], *args, **kwargs), sources))
        return [obj for part in parts for obj in part]

    compiler.compile = compile


class BuildExt(build_ext):
    """``build_ext`` that compiles each extension's sources in parallel, retries an extension
    without ``-flto`` when the compiler rejects it, and says so when an optional extension cannot
    be built at all."""

    def build_extensions(self) -> None:
        compile_in_parallel(self.compiler)
        super().build_extensions()

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
            return
        except Exception as error:  # noqa: BLE001 - the compiler's errors (CompileError, LinkError, ...)
            first = error
        if LTO in ext.extra_compile_args or LTO in ext.extra_link_args:
            tell(f"building {ext.name} with link-time optimisation failed; trying without it")
            ext.extra_compile_args = [arg for arg in ext.extra_compile_args if arg != LTO]
            ext.extra_link_args = [arg for arg in ext.extra_link_args if arg != LTO]
            self.force = True  # (objects compiled for LTO hold no machine code to link without it)
            try:
                super().build_extension(ext)
                return
            except Exception as error:  # noqa: BLE001
                first = error
        if not getattr(ext, "optional", False):
            raise first
        tell(f"the compiled extension {ext.name} could not be built ({type(first).__name__}); ruma will run "
             f"its slower pure-Python code instead (install a C compiler and the Python headers, then reinstall)")
        raise first

SOURCES = ["module.c", "search.c", "search_type.c", "search_batch.c", "search_memo.c", "search_shared.c", "body_sort.c",
           "rows.c", "sowing.c", "wari.c", "table.c", "parse.c", "dyadic.c", "arena.c", "canon.c", "algebra.c", "kernel.c",
           "memo.c", "classes.c", "shared.c", "shared_type.c", "shared_drain.c", "shared_games.c", "game_bytes.c"]
HEADERS = ["hugemem.h", "core.h", "rows.h", "rows_internal.h", "table.h", "parse.h", "search.h", "kernel.h", "dyadic.h",
           "arena.h", "gkernel.h", "memo.h", "shared.h", "shared_games.h", "shared_layout.h", "frame.h", "body_sort.h"]

LMDB = ["mdb.c", "midl.c"]

setup(
    cmdclass={"build_ext": BuildExt},
    ext_modules=[
        Extension(
            "ruma.engine.native._core",
            sources=[f"engine/native/{name}" for name in SOURCES],
            depends=[f"engine/native/{name}" for name in HEADERS],
            # hidden symbols and link-time optimisation: the files' small helpers (rows_begin,
            # rows_commit, the table's) are inlined across files instead of called through the PLT
            extra_compile_args=["-fvisibility=hidden", LTO],
            extra_link_args=[LTO],
            optional=True,
        ),
        Extension(  # the per-entry byte work of the store's bulk writes (store.bulk falls back to Python)
            # and the writer process's transactions, on the LMDB that py-lmdb bundles (third_party/lmdb)
            "ruma.server.store._native",
            sources=["server/store/native.c", "server/store/iterators.c", "server/store/lmdb.c", "server/store/interning.c",
                     "server/store/compact.c", "server/store/merge.c",
                     *(f"third_party/lmdb/{name}" for name in LMDB)],
            # (the batch frames it reads and writes are the engine's format: engine/native/frame.h)
            depends=["server/store/records.h", "server/store/interning.h", "server/store/merge.h", "engine/native/frame.h",
                     "third_party/lmdb/lmdb.h", "third_party/lmdb/midl.h"],
            include_dirs=["server/store", "engine/native", "third_party/lmdb"],
            optional=True,
        ),
    ]
)
