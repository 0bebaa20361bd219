"""Output of the ``ruma`` command line: records as a table, JSON Lines, CSV or text.

    with Output(args.format, [Column("position"), Column("value")]) as out:
        for record in records:
            out.emit(record)                 # a dict: one JSON line, one CSV row or one table row

Tables are drawn by ``rich`` on a terminal (imported only when one is drawn, so ``ruma --help``
stays fast); a table written to a pipe or a file is plain text, columns padded to at most
``PLAIN_WIDTH`` characters (one long canonical form does not widen every row: it is written
whole, and the rest of its row goes on the next line, under its columns). Progress displays are
``ruma.client.progress`` (the bulk loader shows one too); ``throttled`` paces their callbacks.
"""

from __future__ import annotations

import csv
import json
import sys
import time
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Mapping, Sequence, TextIO


@dataclass(frozen=True)
class Column:
    """A column of a table or CSV: the record's ``key``, a ``header`` and how to align it."""

    key: str
    header: str = ""
    justify: str = "left"

    @property
    def title(self) -> str:
        """The header shown (the key with spaces when none was given)."""
        return self.header or self.key.replace("_", " ")


def cell(value: Any, *, csv: bool = False) -> str:
    """A record's field as table or CSV text: None empty, booleans yes/no in tables and
    true/false in CSV, lists of plain values comma-separated in tables, other nested fields as
    compact JSON."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return ("true" if value else "false") if csv else ("yes" if value else "no")
    if isinstance(value, (list, tuple)) and not csv and all(isinstance(v, (str, int)) for v in value):
        separator = "; " if any("," in str(v) for v in value) else ", "
        return separator.join(str(v) for v in value)
    if isinstance(value, (dict, list, tuple)):
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return str(value)


def json_line(record: Mapping[str, Any]) -> str:
    """One record as one line of JSON (Unicode kept)."""
    return json.dumps(record, ensure_ascii=False, default=str)


class Output:
    """Print records in ``fmt``: ``json`` (a line each, at once), ``csv`` (a header, then rows),
    ``table`` (rows drawn when the output is closed) or ``text`` (the ``text`` given to ``emit``,
    else ``key: value`` lines). Columns default to the first record's keys."""

    def __init__(self, fmt: str, columns: Sequence[Column | str] = (), *, stream: TextIO | None = None,
                 title: str | None = None) -> None:
        self.format = fmt
        self.columns = [c if isinstance(c, Column) else Column(c) for c in columns]
        self.stream = stream if stream is not None else sys.stdout
        self.title = title
        self.count = 0
        self._rows: list[list[str]] = []
        self._csv: Any = None

    def emit(self, record: Mapping[str, Any], text: str | None = None) -> None:
        """Print (or keep, for a table) one record; ``text`` is its human form in ``text`` format."""
        self.count += 1
        if not self.columns:
            self.columns = [Column(key) for key in record]
        if self.format == "json":
            print(json_line(record), file=self.stream, flush=True)
        elif self.format == "csv":
            if self._csv is None:
                self._csv = csv.writer(self.stream, lineterminator="\n")
                self._csv.writerow([c.key for c in self.columns])
            self._csv.writerow([cell(record.get(c.key), csv=True) for c in self.columns])
        elif self.format == "table":
            self._rows.append([cell(record.get(c.key)) for c in self.columns])
        else:
            block = text if text is not None else labelled(record)
            if "\n" in block and self.count > 1:  # blocks of several lines, a blank line apart
                print(file=self.stream)
            print(block, file=self.stream)

    def close(self) -> None:
        """Draw the table (if any rows were kept)."""
        if self.format == "table" and self._rows:
            print_table(self.columns, self._rows, stream=self.stream, title=self.title)
            self._rows = []

    def __enter__(self) -> "Output":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def labelled(record: Mapping[str, Any], keys: Sequence[str] | None = None) -> str:
    """``key: value`` lines (the keys aligned) for a record shown to a person."""
    names = list(keys) if keys is not None else [k for k, v in record.items() if v is not None]
    width = max((len(k) for k in names), default=0) + 1
    return "\n".join(f"{(k.replace('_', ' ') + ':'):<{width + 1}}{cell(record.get(k))}" for k in names)


#: in a table written to a pipe or file, columns are padded to at most this many characters: a
#: longer cell (a large canonical form) is written whole rather than widening every row
PLAIN_WIDTH = 32


def plain_table(columns: Sequence[Column], rows: Sequence[Sequence[str]]) -> Iterator[str]:
    """The lines of a table for a pipe or a file: columns two spaces apart, each padded to its
    widest cell but at most ``PLAIN_WIDTH``; a longer cell is written whole and the rest of its
    row continues on the next line, each cell under its column, so every column stays aligned. No
    trailing spaces. Linear in the output: no cell is measured twice, none is cut."""
    header = [c.title for c in columns]
    widths = [min(PLAIN_WIDTH, max([len(header[i]), *(len(row[i]) for row in rows)])) for i in range(len(columns))]
    starts = [sum(widths[:i]) + 2 * i for i in range(len(columns))]
    for cells in (header, *rows):
        line = ""
        for cell, width, start, column in zip(cells, widths, starts, columns):
            if line and len(line) > start - 2:  # the cell before was longer than its column: on under it
                yield line.rstrip()
                line = " " * start
            elif line or start:
                line += "  "
            line += cell.rjust(width) if column.justify == "right" else cell.ljust(width)
        yield line.rstrip()


def print_table(columns: Sequence[Column], rows: Sequence[Sequence[str]], *, stream: TextIO | None = None,
                title: str | None = None) -> None:
    """Draw a table: with ``rich`` on a terminal, as ``plain_table`` elsewhere."""
    out = stream if stream is not None else sys.stdout
    terminal = out.isatty()
    if not terminal:
        if title:
            print(title, file=out)
        out.write("".join(line + "\n" for line in plain_table(columns, rows)))
        return
    from rich import box
    from rich.console import Console
    from rich.table import Table

    console = Console(file=out, highlight=False, emoji=False, markup=False)
    table = Table(title=title, box=box.SIMPLE_HEAD, show_edge=False, pad_edge=False, header_style="bold",
                  title_justify="left")
    for column in columns:
        table.add_column(column.title, justify=column.justify, overflow="fold")  # type: ignore[arg-type]
    for row in rows:
        table.add_row(*row)
    with console.capture() as captured:
        console.print(table)
    text = captured.get()
    print("\n".join(line.rstrip() for line in text.splitlines()), file=out)


def throttled(report: Callable[[int], None], interval: float = 0.1) -> Callable[[int], None]:
    """``report`` called at most every ``interval`` seconds (for callbacks run per position)."""
    last = [0.0]

    def call(value: int) -> None:
        now = time.monotonic()
        if now - last[0] >= interval:
            last[0] = now
            report(value)

    return call
