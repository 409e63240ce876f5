"""Text plots: series against the step, and histograms, drawn with characters (History.finalize's
plots/tplot/*.txt, and what a script prints on a terminal). Standard library only; the Python ezpz
draws these with plotext, whose look they follow (braille lines, one marker per statistic)."""

import math as _math
import os as _os

DEFAULT_MARKER = "braille"
MAX_PLOT_WIDTH = 120
MAX_PLOT_HEIGHT = 40
_DEFAULT_SIZE = (60, 20)

# The markers of a statistic's series, as History draws them (the Python ezpz's MARKER_MAP).
MARKERS = {"raw": "braille", "mean": "·", "min": "-", "max": "+", "std": "*"}

# Braille dot bits of a character cell, by (column, row) within the cell's 2 x 4 dots.
_BRAILLE_BITS = {(0, 0): 0x01, (0, 1): 0x02, (0, 2): 0x04, (0, 3): 0x40,
                 (1, 0): 0x08, (1, 1): 0x10, (1, 2): 0x20, (1, 3): 0x80}


def _finite_points(xs, ys):
    return [(float(x), float(y)) for x, y in zip(xs, ys)
            if isinstance(y, (int, float)) and _math.isfinite(y) and _math.isfinite(x)]


def _tick(value):
    """A short label for an axis value (3 significant digits, no exponent for usual magnitudes)."""
    if value == 0:
        return "0"
    if 1e-3 <= abs(value) < 1e6:
        text = f"{value:.3g}" if abs(value) < 1000 else f"{value:.0f}"
        return text
    return f"{value:.2e}"


def _span(low, high):
    if low == high:
        pad = abs(low) * 0.05 or 1.0
        return low - pad, high + pad
    return low, high


def _size(width, height):
    width = _DEFAULT_SIZE[0] if width is None else width
    height = _DEFAULT_SIZE[1] if height is None else height
    return max(10, min(int(width), MAX_PLOT_WIDTH)), max(4, min(int(height), MAX_PLOT_HEIGHT))


def _frame(cells, width, height, ylow, yhigh, xlow, xhigh, title, legend, xlabel):
    """The plot as text: title, legend, the y axis labels, the box around ``cells`` and the x axis."""
    ylabels = {}
    for index in range(5):
        row = round(index * (height - 1) / 4)
        ylabels[row] = _tick(yhigh - (yhigh - ylow) * row / (height - 1))
    margin = max(len(text) for text in ylabels.values())
    lines = []
    if title:
        lines.append(" " * (margin + 1) + title.center(width + 2).rstrip())
    for entry in legend:
        lines.append(" " * (margin + 2) + entry)
    lines.append(" " * margin + "┌" + "─" * width + "┐")
    for row in range(height):
        label = ylabels.get(row)
        body = "".join(cells[row])
        lines.append((label.rjust(margin) + "┤" if label is not None else " " * margin + "│") + body + "│")
    ticks = {round(index * (width - 1) / 4): _tick(xlow + (xhigh - xlow) * index / 4) for index in range(5)}
    lines.append(" " * margin + "└" + "".join("┬" if column in ticks else "─" for column in range(width)) + "┘")
    axis = [" "] * (width + len(ticks[width - 1]) + 2)
    for column, text in ticks.items():
        start = max(0, min(column + 1 - len(text) // 2, len(axis) - len(text)))
        if all(char == " " for char in axis[max(0, start - 1):start + len(text)]):
            axis[start:start + len(text)] = list(text)
    lines.append(" " * margin + "".join(axis).rstrip())
    if xlabel:
        lines.append(" " * (margin + 1) + xlabel.center(width).rstrip())
    return "\n".join(lines) + "\n"


def plot_lines(series, *, width=None, height=None, title=None, xlabel=None):
    """Lines on one set of axes: ``series`` is a list of (label, xs, ys, marker), marker "braille" or one
    character; later series are drawn over earlier ones. Non-finite values are left out."""
    width, height = _size(width, height)
    drawn = [(label, _finite_points(xs, ys), marker) for label, xs, ys, marker in series]
    points = [point for _, pts, _ in drawn for point in pts]
    if not points:
        return f"{title or ''} (no finite values)\n"
    xlow, xhigh = _span(min(p[0] for p in points), max(p[0] for p in points))
    ylow, yhigh = _span(min(p[1] for p in points), max(p[1] for p in points))
    cells = [[" "] * width for _ in range(height)]
    for _, pts, marker in drawn:
        braille = marker in (None, "braille")
        columns, rows = (width * 2, height * 4) if braille else (width, height)

        def place(x, y, columns=columns, rows=rows):
            column = round((x - xlow) / (xhigh - xlow) * (columns - 1))
            row = round((yhigh - y) / (yhigh - ylow) * (rows - 1))
            return column, row

        dots = set()
        placed = [place(x, y) for x, y in pts]
        for index, (column, row) in enumerate(placed):
            dots.add((column, row))
            if index:  # the segment from the previous point, one dot per step of the longer side
                last_column, last_row = placed[index - 1]
                steps = max(abs(column - last_column), abs(row - last_row))
                for step in range(1, steps):
                    dots.add((round(last_column + (column - last_column) * step / steps),
                              round(last_row + (row - last_row) * step / steps)))
        if braille:
            bits = {}
            for column, row in dots:
                cell = (row // 4, column // 2)
                bits[cell] = bits.get(cell, 0) | _BRAILLE_BITS[(column % 2, row % 4)]
            for (row, column), value in bits.items():
                cells[row][column] = chr(0x2800 + value)
        else:
            for column, row in dots:
                cells[row][column] = marker
    legend = []
    if len(drawn) > 1 or any(label for label, _, _ in drawn):
        legend = [f"{(chr(0x28FF) if marker in (None, 'braille') else marker) * 2} {label}"
                  for label, _, marker in drawn if label]
    return _frame(cells, width, height, ylow, yhigh, xlow, xhigh, title, legend, xlabel)


def histogram(values, *, bins=None, width=None, height=None, title=None):
    """A histogram of ``values`` (finite ones) in ``bins`` bins (default: one per two columns)."""
    width, height = _size(width, height)
    data = [float(v) for v in values if isinstance(v, (int, float)) and _math.isfinite(v)]
    if not data:
        return f"{title or ''} (no finite values)\n"
    bins = max(1, int(bins)) if bins else max(1, width // 2)
    low, high = _span(min(data), max(data))
    counts = [0] * bins
    for value in data:
        counts[min(int((value - low) / (high - low) * bins), bins - 1)] += 1
    top = max(counts)
    cells = [[" "] * width for _ in range(height)]
    for column in range(width):
        count = counts[min(column * bins // width, bins - 1)]
        filled = round(count / top * height)
        for row in range(height - filled, height):
            cells[row][column] = "█"
    return _frame(cells, width, height, 0.0, float(top), low, high, title, [], None)


def get_plot_title(ylabel=None, xlabel=None, label=None):
    """The Python ezpz's title for a text plot: "ylabel vs xlabel", else ylabel, else label."""
    if ylabel is not None and xlabel is not None:
        return f"{ylabel} vs {xlabel}"
    return ylabel if ylabel is not None else (label if label is not None else "")


def _numbers(values):
    """Plain floats from a list, tuple, numpy array or torch tensor (duck-typed: no import)."""
    if hasattr(values, "detach"):
        values = values.detach().cpu()
    if hasattr(values, "tolist"):
        values = values.tolist()
    return [float(v) if isinstance(v, (int, float)) else float("nan") for v in values]


def tplot(y, x=None, label=None, title=None, xlabel=None, ylabel=None, marker=None, bins=None, logfreq=1,
          outfile=None, plot_type=None, append=True, verbose=False, figsize=None, quiet=False):
    """The Python ezpz's ``tplot``: ``y`` against ``x`` (default: 0, logfreq, 2·logfreq, …) as a line, or
    its histogram with ``plot_type="hist"`` ($EZPZ_TPLOT_TYPE when not given); printed unless ``quiet``,
    written to (or appended to, with ``append``) ``outfile``. Returns the text."""
    plot_type = plot_type or _os.environ.get("EZPZ_TPLOT_TYPE") or "line"
    marker = marker or _os.environ.get("EZPZ_TPLOT_MARKER") or DEFAULT_MARKER
    if marker not in ("braille",) and len(marker) != 1:
        marker = DEFAULT_MARKER  # plotext's marker names (hd, fhd, dot …) are drawn as braille
    title = get_plot_title(ylabel=ylabel, xlabel=xlabel, label=label) if title is None else title
    width, height = figsize if figsize is not None else (None, None)
    ys = _numbers(y)
    if plot_type == "hist":
        text = histogram(ys, bins=bins, width=width, height=height, title=title)
    else:
        xs = _numbers(x) if x is not None else [index * logfreq for index in range(len(ys))]
        text = plot_lines([(label, xs, ys, marker)], width=width, height=height, title=title, xlabel=xlabel)
    if not quiet:
        print("\n" + text, end="", flush=True)
    if outfile is not None:
        path = _os.fspath(outfile)
        parent = _os.path.dirname(path)
        if parent:
            _os.makedirs(parent, exist_ok=True)
        with open(path, "a" if append else "w", encoding="utf-8") as handle:
            handle.write(text)
    return text
