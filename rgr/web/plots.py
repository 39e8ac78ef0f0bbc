"""Small server-rendered SVG charts: no charting library, no script, nothing for the
browser to fetch. Every label passes through markupsafe.escape (a feature's text is an
agent's or a user's), and colours come from classes in the page's own stylesheet, not
``style`` attributes, which the Content-Security-Policy refuses."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime

from markupsafe import Markup, escape

WIDTH = 760
ROW = 22
LEFT = 260


def _shorten(text: str, limit: int = 40) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit - 1] + "…"


def _frame(title: str, height: int, body: list[str]) -> Markup:
    return Markup(
        f'<svg class="plot" role="img" viewBox="0 0 {WIDTH} {height}" width="{WIDTH}" '
        f'height="{height}" xmlns="http://www.w3.org/2000/svg"><title>{escape(title)}'
        f"</title>{''.join(body)}</svg>")


def bars(title: str, items: Sequence[tuple[str, float]], unit: str = "",
         digits: int = 0) -> Markup:
    """A horizontal bar per (label, value)."""
    if not items:
        return Markup('<p class="empty">nothing yet</p>')
    top = max(value for _, value in items) or 1.0
    span = WIDTH - LEFT - 90
    body = []
    for n, (label, value) in enumerate(items):
        y = 6 + n * ROW
        width = max(1.0, span * value / top)
        body.append(
            f'<text class="label" x="{LEFT - 8}" y="{y + 14}" text-anchor="end">'
            f"{escape(_shorten(label))}</text>"
            f'<rect class="bar" x="{LEFT}" y="{y + 2}" width="{width:.1f}" height="{ROW - 6}">'
            f"<title>{escape(label)}: {unit}{value:.{digits}f}</title></rect>"
            f'<text class="value" x="{LEFT + width + 6:.1f}" y="{y + 14}">'
            f"{escape(unit)}{value:.{digits}f}</text>")
    return _frame(title, 12 + len(items) * ROW, body)


def timeline(title: str, items: Sequence[tuple[str, datetime, datetime, str]]) -> Markup:
    """One bar per (label, start, end, css class) on a shared time axis."""
    if not items:
        return Markup('<p class="empty">nothing yet</p>')
    first = min(start for _, start, _, _ in items).timestamp()
    last = max(end for _, _, end, _ in items).timestamp()
    span = max(last - first, 1.0)
    scale = (WIDTH - LEFT - 20) / span
    body = []
    for n, (label, start, end, kind) in enumerate(items):
        y = 6 + n * ROW
        x = LEFT + (start.timestamp() - first) * scale
        width = max(3.0, (end.timestamp() - start.timestamp()) * scale)
        body.append(
            f'<text class="label" x="{LEFT - 8}" y="{y + 14}" text-anchor="end">'
            f"{escape(_shorten(label))}</text>"
            f'<rect class="span {escape(kind)}" x="{x:.1f}" y="{y + 2}" width="{width:.1f}" '
            f'height="{ROW - 6}"><title>{escape(label)}: {start:%Y-%m-%d %H:%M} → '
            f"{end:%Y-%m-%d %H:%M}</title></rect>")
    height = 12 + len(items) * ROW
    body.append(f'<text class="axis" x="{LEFT}" y="{height + 14}">'
                f"{datetime.fromtimestamp(first):%Y-%m-%d %H:%M}</text>"
                f'<text class="axis" x="{WIDTH - 20}" y="{height + 14}" text-anchor="end">'
                f"{datetime.fromtimestamp(last):%Y-%m-%d %H:%M}</text>")
    return _frame(title, height + 22, body)


def lines(title: str, series: Sequence[tuple[str, dict[int, int]]]) -> Markup:
    """One polyline per (label, {x: y}) on shared axes: tests done after each cycle."""
    points = [(x, y) for _, values in series for x, y in values.items()]
    if not points:
        return Markup('<p class="empty">nothing yet</p>')
    left, height, bottom = 50, 240, 30
    top_x = max(x for x, _ in points) or 1
    top_y = max(y for _, y in points) or 1
    plot_w = WIDTH - left - 200

    def at(x: int, y: int) -> str:
        return (f"{left + plot_w * (x - 1) / max(top_x - 1, 1):.1f},"
                f"{height - bottom - (height - bottom - 10) * y / top_y:.1f}")

    body = [f'<line class="axis" x1="{left}" y1="{height - bottom}" x2="{left + plot_w}" '
            f'y2="{height - bottom}"/><line class="axis" x1="{left}" y1="10" x2="{left}" '
            f'y2="{height - bottom}"/>'
            f'<text class="axis" x="{left}" y="{height - 8}">cycle 1</text>'
            + (f'<text class="axis" x="{left + plot_w}" y="{height - 8}" '
               f'text-anchor="end">cycle {top_x}</text>' if top_x > 1 else "") +
            f'<text class="axis" x="{left - 6}" y="16" text-anchor="end">{top_y}</text>'
            f'<text class="axis" x="{left - 6}" y="{height - bottom}" text-anchor="end">0</text>']
    for n, (label, values) in enumerate(series):
        ordered = sorted(values.items())
        drawn = " ".join(at(x, y) for x, y in ordered)
        body.append(f'<polyline class="series s{n % 8}" points="{drawn}"><title>'
                    f"{escape(label)}</title></polyline>")
        for x, y in ordered:
            cx, cy = at(x, y).split(",")
            body.append(f'<circle class="dot s{n % 8}" cx="{cx}" cy="{cy}" r="3"><title>'
                        f"{escape(label)}: {y} test(s) after cycle {x}</title></circle>")
        body.append(f'<text class="legend s{n % 8}" x="{left + plot_w + 12}" '
                    f'y="{18 + n * 16}">{escape(_shorten(label, 28))}</text>')
    return _frame(title, height, body)
