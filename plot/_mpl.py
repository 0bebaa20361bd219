"""matplotlib, imported on first use, and how figures are written."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ruma.engine.errors import RumaError, RumaInputError

if TYPE_CHECKING:
    from matplotlib.figure import Figure

FORMATS = ("svg", "png")


class PlotError(RumaError):
    """matplotlib is missing, or a picture cannot be written."""


_FIGURE_CLASS: Any = None


def _figure_class() -> Any:
    """``matplotlib.figure.Figure`` with a ``_repr_png_``, so figures show in Jupyter without pyplot."""
    global _FIGURE_CLASS
    if _FIGURE_CLASS is None:
        try:
            from matplotlib.figure import Figure
        except ModuleNotFoundError as error:
            raise PlotError("pictures need matplotlib: pip install 'ruma[plot]'") from error

        class RumaFigure(Figure):
            """A matplotlib figure that renders itself as PNG in notebooks."""

            def _repr_png_(self) -> bytes:
                import io

                buffer = io.BytesIO()
                self.savefig(buffer, format="png", dpi=100)
                return buffer.getvalue()

        _FIGURE_CLASS = RumaFigure
    return _FIGURE_CLASS


def new_figure(width: float, height: float) -> Figure:
    """A pyplot-free ``Figure`` of ``width`` x ``height`` inches (matplotlib is imported here)."""
    figure: Figure = _figure_class()(figsize=(width, height), layout="constrained")
    return figure


def fraction_text(q: Fraction | int) -> str:
    """An exact rational as ``3/4``, ``-1``, ``5/4``."""
    return str(Fraction(q))


def save(fig: Figure, path: str | Path, *, dpi: int = 150) -> Path:
    """Write ``fig`` as SVG or PNG (by the suffix of ``path``); returns the path.

    SVG keeps text as ``<text>`` elements (exact labels stay searchable) and carries no date, so
    the same figure gives the same file."""
    import matplotlib

    target = Path(path)
    kind = target.suffix.lower().lstrip(".")
    if kind not in FORMATS:
        raise RumaInputError(f"cannot write {str(path)!r}: the file name must end in .svg or .png")
    options: dict[str, Any] = {"format": kind}
    if kind == "svg":
        options["metadata"] = {"Date": None}
    else:
        options["dpi"] = dpi
        options["metadata"] = {"Software": None}
    try:
        with matplotlib.rc_context({"svg.fonttype": "none", "svg.hashsalt": "ruma"}):
            fig.savefig(target, **options)
    except OSError as error:
        raise PlotError(f"cannot write {str(path)!r}: {error.strerror or error}") from error
    return target
