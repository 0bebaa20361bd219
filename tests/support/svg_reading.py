"""Reading matplotlib's SVG back: elements by id, tick labels, and pixel -> data coordinates.

The data coordinates of a marker are recovered from the SVG alone: the axis ticks are ``<use>``
marks at known pixels with ``<text>`` labels (``svg.fonttype = none``), which fix the affine map
from pixels to data on each axis.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from fractions import Fraction
from typing import Iterator

SVG = "{http://www.w3.org/2000/svg}"


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg.encode("utf-8"))


def by_id(root: ET.Element, ident: str) -> ET.Element:
    for element in root.iter():
        if element.get("id") == ident:
            return element
    raise AssertionError(f"no element with id {ident!r}")


def ids(root: ET.Element, prefix: str) -> list[str]:
    return [e.get("id", "") for e in root.iter() if e.get("id", "").startswith(prefix)]


def texts(element: ET.Element) -> list[str]:
    return ["".join(t.itertext()) for t in element.iter(f"{SVG}text")]


def uses(element: ET.Element) -> Iterator[tuple[float, float]]:
    for use in element.iter(f"{SVG}use"):
        yield float(use.get("x", "nan")), float(use.get("y", "nan"))


def _label(text: str) -> Fraction:
    return Fraction(text.replace("\u2212", "-").strip())


class Axes:
    """The affine pixel -> data maps of a figure's first axes, fixed by its tick labels."""

    def __init__(self, root: ET.Element) -> None:
        self.x = self._fit(root, "xtick_", 0)
        self.y = self._fit(root, "ytick_", 1)

    @staticmethod
    def _fit(root: ET.Element, prefix: str, coordinate: int) -> tuple[float, float]:
        ticks: list[tuple[float, Fraction]] = []
        for ident in ids(root, prefix):
            tick = by_id(root, ident)
            pixel = next(uses(tick))[coordinate]
            ticks.append((pixel, _label(texts(tick)[0])))
        assert len(ticks) >= 2, f"need two {prefix} ticks"
        (p0, v0), (p1, v1) = ticks[0], ticks[-1]
        scale = float(v1 - v0) / (p1 - p0)
        for p, v in ticks:  # every tick lies on the same line: the labels are exact
            assert abs(float(v0) + (p - p0) * scale - float(v)) < 1e-6 * max(1.0, abs(float(v)))
        return p0 - float(v0) / scale, scale

    def data(self, px: float, py: float) -> tuple[float, float]:
        """Data coordinates of a pixel."""
        return (px - self.x[0]) * self.x[1], (py - self.y[0]) * self.y[1]
