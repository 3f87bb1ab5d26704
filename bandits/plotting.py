"""One plotting style for every paper (layer 10): mean curves with honest bands, per-run points, saving.

Figures are drawn from the tidy results tables, never from in-memory state, so a figure can be
redrawn from ``results.csv`` alone.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np
from .validation import check, one_of

__all__ = ["setup_style", "PALETTE", "color_for", "BANDS", "BAND_TEXT", "mean_band", "band_plot", "final_points",
           "save_figure", "MAX_ASPECT", "line_styles", "value_ticks", "plain_log_labels", "unique_handles",
           "legend_below", "legend_right", "suptitle", "tight", "place_labels", "text_problems"]

PALETTE = {
    "DUETS": "#d62728",
    "DisKernelUCB": "#1f77b4",
    "ApproxDisKernelUCB": "#2ca02c",
    "N-KernelUCB": "#7f7f7f",
}
_EXTRA = ["#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf", "#bcbd22"]


def setup_style():
    import matplotlib.pyplot as plt  # inline in Jupyter; Agg when there is no display

    plt.rcParams.update({
        "figure.dpi": 110, "savefig.dpi": 150, "font.size": 9, "axes.titlesize": 10,
        "axes.grid": True, "grid.alpha": 0.3, "legend.fontsize": 8, "legend.frameon": False,
        "axes.spines.top": False, "axes.spines.right": False,
    })
    return plt


def color_for(label: str, i: int = 0) -> str:
    for k, c in PALETTE.items():
        if label == k:
            return c
    return _EXTRA[i % len(_EXTRA)]


BANDS = ("se", "bootstrap", "sd", "none")


def mean_band(runs: np.ndarray, band: str = "se", bounds: tuple | None = None, level: float = 0.95,
              n_boot: int = 2000, seed: int = 11) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    r"""The mean curve of ``runs`` and its band, clipped to the quantity's range.

    Args:
        runs: shape ``(n_runs, n_points)``, one curve per run.
        band: ``"se"`` (default): mean ± one standard error :math:`s/\sqrt{n}`; ``"bootstrap"``:
            the percentile bootstrap interval of the mean at ``level`` (runs resampled with a
            Generator seeded by ``seed``, so the figure is reproducible); ``"sd"``: mean ± one
            standard deviation (the spread of single runs, not the uncertainty of the mean);
            ``"none"``.
        bounds: ``(lower, upper)`` of the quantity (``None`` = unbounded), e.g. ``(0, None)``
            for a cumulative regret or a communication count: the band never leaves it.

    Returns:
        ``(mean, lower, upper)``, each shape ``(n_points,)`` (lower = upper = mean with one run
        or ``band="none"``).
    """
    check("band", band, one_of(*BANDS))
    runs = np.atleast_2d(np.asarray(runs, dtype=float))
    n = runs.shape[0]
    mean = runs.mean(axis=0)
    lo, hi = mean.copy(), mean.copy()
    if n > 1 and band in ("se", "sd"):
        h = runs.std(axis=0, ddof=1) / (np.sqrt(n) if band == "se" else 1.0)
        lo, hi = mean - h, mean + h
    elif n > 1 and band == "bootstrap":
        rng = np.random.default_rng(seed)
        idx = rng.integers(0, n, size=(n_boot, n))
        boots = runs[idx].mean(axis=1)  # (n_boot, n_points)
        lo, hi = np.quantile(boots, [(1 - level) / 2, (1 + level) / 2], axis=0)
    if bounds is not None:
        b0, b1 = bounds
        lo, hi = np.clip(lo, b0, b1), np.clip(hi, b0, b1)
    return mean, lo, hi


def final_points(ax, x_end, values, color=None, offset: float = 0.015, spread: float = 0.01, **kw):
    """The per-run final values as small points just right of ``x_end`` (a heavy tail, e.g. one
    stuck run, shows as an outlying point). Points are spread horizontally by their rank (no
    randomness). ``offset`` and ``spread`` are fractions of the x-axis span."""
    v = np.asarray(values, dtype=float).ravel()
    if v.size == 0:
        return None
    x0, x1 = ax.get_xlim()
    span = x1 - x0 if x1 > x0 else max(abs(float(x_end)), 1.0)
    if ax.get_xscale() == "log":
        xs = float(x_end) * np.exp(np.log(10) * (offset + spread * np.linspace(0, 1, v.size)))
    else:
        xs = float(x_end) + span * (offset + spread * np.linspace(0, 1, v.size))
    order = np.argsort(v)
    return ax.scatter(xs[np.argsort(order)], v, s=kw.pop("s", 7), color=color, alpha=kw.pop("alpha", 0.7),
                      lw=0, zorder=3, clip_on=False, **kw)


def band_plot(ax, x, runs: np.ndarray, label: str, color: str | None = None, band: str = "se",
              linestyle: str = "-", bounds: tuple | None = None, points: bool = False, level: float = 0.95,
              seed: int = 11):
    """Plot the mean of ``runs`` (n_runs × len(x)) with a band (:func:`mean_band`: standard error
    by default, or a bootstrap interval of the mean, or ±1 s.d.), clipped to ``bounds``; with
    ``points=True`` the per-run final values are drawn beside the curve's end (:func:`final_points`)."""
    runs = np.atleast_2d(np.asarray(runs, dtype=float))
    mean, lo, hi = mean_band(runs, band, bounds, level=level, seed=seed)
    line, = ax.plot(x, mean, label=label, color=color, linestyle=linestyle, lw=1.6)
    if band != "none" and runs.shape[0] > 1:
        ax.fill_between(x, lo, hi, color=line.get_color(), alpha=0.18, lw=0)
    if points and runs.shape[0] > 1:
        final_points(ax, np.asarray(x)[-1], runs[:, -1], color=line.get_color())
    return line


BAND_TEXT = {"se": "mean ± 1 s.e.", "bootstrap": "mean, 95% bootstrap interval", "sd": "mean ± 1 s.d.",
             "none": "mean"}


def save_figure(fig, out: str | Path, name: str) -> list[Path]:
    """Write ``<out>/<name>.png`` and ``.pdf``; returns the paths."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paths = [out / f"{name}.png", out / f"{name}.pdf"]
    for p in paths:
        fig.savefig(p, bbox_inches="tight", metadata={"CreationDate": None} if p.suffix == ".pdf" else None)
    return paths


# ------------------------------------------------------------------------------ readable figures
#: the widest a saved figure may be for its height (width / height of the saved, tight image): a six-panel
#: strip of aspect 6 shown at a page's width (≈ 730 px) is ≈ 115 px tall, its text ≈ 5 px high
MAX_ASPECT = 4.0

#: distinct hues for method families (a family's variants are shades of its hue, see :func:`line_styles`)
_FAMILY_HUES = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b", "#e377c2", "#17becf",
                "#bcbd22", "#7f7f7f", "#393b79", "#637939"]


def _shade(color: str, f: float) -> str:
    """``color`` mixed with black (``f < 0``, share ``-f``) or white (``f > 0``, share ``f``)."""
    from matplotlib.colors import to_hex, to_rgb

    c = np.asarray(to_rgb(color))
    c = c * (1 + f) if f < 0 else c + (1 - c) * f
    return to_hex(np.clip(c, 0, 1))


def line_styles(labels, variant_suffix: str = " [official]", family=None, max_shades: int = 3) -> dict:
    """A colour and a line style per label, so that no two labels of one figure share both.

    A label and its ``variant_suffix`` variant (e.g. ``"NeuralUCB"`` and ``"NeuralUCB [official]"``)
    share one colour, the variant dashed. Labels of one family (``family(label)``; default: the text
    before the first ``" ("``, so ``"LinearUCB (ν=1)"`` and ``"LinearUCB (ν=0.1)"`` are one family) get
    shades of the family's hue, dark to light, up to ``max_shades`` members (a larger family: a hue per
    member, shades that close are not told apart); the families get distinct hues (:data:`PALETTE`'s
    colour where it names the family). Pass every label of the figure (all panels) so that a label has one style
    across panels.

    Returns ``{label: (color, linestyle)}``."""
    family = family or (lambda s: s.split(" (")[0].split(" [")[0])
    bases = list(dict.fromkeys(lab[:-len(variant_suffix)] if variant_suffix and lab.endswith(variant_suffix) else lab
                               for lab in labels))
    size = {}
    for b in bases:
        size[family(b)] = size.get(family(b), 0) + 1
    fam_of = {b: family(b) if size[family(b)] <= max_shades else b for b in bases}
    family = fam_of.__getitem__
    fams = list(dict.fromkeys(family(b) for b in bases))
    taken = {PALETTE[f] for f in fams if f in PALETTE}
    free = iter([c for c in _FAMILY_HUES if c not in taken] + _EXTRA)
    hue = {f: PALETTE[f] if f in PALETTE else next(free, "#333333") for f in fams}
    out = {}
    for f in fams:
        members = [b for b in bases if family(b) == f]
        k = len(members)
        shades = [0.0] if k == 1 else np.linspace(-0.35, 0.45, k)
        for b, s in zip(members, shades):
            col = _shade(hue[f], float(s))
            out[b] = (col, "-")
            if variant_suffix:
                out[b + variant_suffix] = (col, "--")
    return {lab: out[lab] for lab in labels}


def value_ticks(ax, values, axis: str = "x", fmt=None):
    """Major ticks at ``values`` (e.g. a tuning grid) labelled plainly (``fmt``, default ``{:g}``), no
    minor tick labels: a log axis spanning less than a decade otherwise labels its minor ticks
    ("2×10⁻¹ 3×10⁻¹ …"), and they collide."""
    from matplotlib.ticker import FixedLocator, NullFormatter

    a = ax.xaxis if axis == "x" else ax.yaxis
    vals = sorted({float(v) for v in values})
    a.set_major_locator(FixedLocator(vals))
    a.set_ticklabels([(fmt or "{:g}").format(v) for v in vals])
    a.set_minor_formatter(NullFormatter())


def plain_log_labels(ax, axis: str = "x"):
    """No labels on the minor ticks of a log axis (only the decades are labelled; where the axis spans
    less than two decades, matplotlib's default labels the minor ticks too, and they collide)."""
    from matplotlib.ticker import LogLocator, NullFormatter

    a = ax.xaxis if axis == "x" else ax.yaxis
    lo, hi = sorted(a.get_view_interval())
    a.set_minor_formatter(NullFormatter())
    if lo > 0 and np.floor(np.log10(hi)) - np.ceil(np.log10(lo)) < 1:  # fewer than two decades labelled
        a.set_major_locator(LogLocator(base=10, subs=(1.0, 2.0, 5.0)))


def unique_handles(axes):
    """The legend handles and labels of ``axes``, each label once, in first-seen order."""
    seen = {}
    for ax in np.ravel(axes):
        for h, lab in zip(*ax.get_legend_handles_labels()):
            if not lab.startswith("_"):
                seen.setdefault(lab, h)
    return list(seen.values()), list(seen.keys())


def legend_below(fig, axes=None, handles=None, labels=None, ncol: int | None = None, fontsize: float = 7,
                 pad: float = 0.01):
    """One legend for the whole figure, below the panels (never over a curve), and the panels laid out
    between it and the suptitle (:func:`tight`). ``handles``
    / ``labels`` default to :func:`unique_handles` of ``axes`` (default: every axes of ``fig``)."""
    if handles is None:
        handles, labels = unique_handles(axes if axes is not None else fig.axes)
    if not handles:
        tight(fig)
        return None
    ncol = ncol or max(1, min(len(labels), 4))
    while True:  # as many columns as fit in the figure's width
        leg = fig.legend(handles, labels, loc="lower center", bbox_to_anchor=(0.5, 0.0), ncol=ncol,
                         fontsize=fontsize, frameon=False)
        fig.canvas.draw()
        box = leg.get_window_extent(fig.canvas.get_renderer())
        if ncol == 1 or box.width <= 0.98 * fig.bbox.width:
            break
        leg.remove()
        ncol -= 1
    h = box.height / fig.bbox.height
    tight(fig, bottom=min(h + pad, 0.6))
    return leg


def suptitle(fig, text: str, fontsize: float = 10, **kw):
    """``fig.suptitle`` wrapped to the figure's width (a title wider than the figure widens the saved
    image and shrinks everything else when the page scales it down). Lines break only after a comma or
    a semicolon, so that a phrase ("3 of the paper's 10 runs") stays on one line."""
    import re

    width = max(20, int(fig.get_figwidth() * 72 / (0.55 * fontsize)))  # characters of ≈ 0.55 em per line
    lines = []
    for para in text.split("\n"):
        cur = ""
        for chunk in re.split(r"(?<=[,;]) ", para):
            if cur and len(cur) + 1 + len(chunk) > width:
                lines.append(cur)
                cur = chunk
            else:
                cur = f"{cur} {chunk}" if cur else chunk
        lines.append(cur)
    return fig.suptitle("\n".join(lines), fontsize=fontsize, **kw)


def tight(fig, bottom: float = 0.0, pad_px: float = 4.0):
    """``fig.tight_layout`` above ``bottom`` (a figure fraction, e.g. a figure legend's height), then,
    where the suptitle still runs into the panels (``tight_layout`` leaves it so in some tall figures
    whose legends sit under the panels), once more with the panels' top lowered by the overlap."""
    fig.tight_layout(rect=(0, bottom, 1, 1))
    st = getattr(fig, "_suptitle", None)
    if st is None or not st.get_text().strip():
        return
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    low = st.get_window_extent(r).y0
    tops = [ax.get_tightbbox(r).y1 for ax in fig.axes if ax.get_visible()]
    over = (max(tops) + pad_px - low) if tops else 0.0
    if over > 0:
        fig.tight_layout(rect=(0, bottom, 1, 1 - over / fig.bbox.height))


#: where :func:`place_labels` tries a label, in order: (dx, dy) in points, horizontal and vertical alignment
_LABEL_SPOTS = [(3, 3, "left", "bottom"), (3, -3, "left", "top"), (-3, 3, "right", "bottom"),
                (-3, -3, "right", "top"), (0, 7, "center", "bottom"), (0, -7, "center", "top")]


def place_labels(ax, xs, ys, texts, colors=None, **kw):
    """Annotate the points ``(xs[i], ys[i])`` with ``texts[i]``, each at the first spot of
    :data:`_LABEL_SPOTS` (right-above, right-below, left-above, ...) where it overlaps no label placed
    before it (else where it overlaps least). Call it once the figure's layout is final (after
    ``tight_layout``): the labels' extents are measured with the renderer. ``colors``: one per label
    (default: ``kw``'s). Returns the annotations."""
    fig = ax.figure
    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    placed, out = [], []
    colors = list(colors) if colors is not None else [kw.pop("color", None)] * len(list(texts))
    for x, y, t, c in zip(xs, ys, texts, colors):
        best = None
        for dx, dy, ha, va in _LABEL_SPOTS:
            a = ax.annotate(t, (x, y), xytext=(dx, dy), textcoords="offset points", ha=ha, va=va, color=c, **kw)
            b = a.get_window_extent(r)
            cost = sum(max(0.0, min(b.x1, o.x1) - max(b.x0, o.x0)) * max(0.0, min(b.y1, o.y1) - max(b.y0, o.y0))
                       for o in placed)
            if best is None or cost < best[0]:
                if best is not None:
                    best[1].remove()
                best = (cost, a, b)
            else:
                a.remove()
            if cost == 0:
                break
        placed.append(best[2])
        out.append(best[1])
    return out


def legend_right(ax, fontsize: float = 6.5, **kw):
    """The axes' legend outside it, to its right (``tight_layout`` then makes room for it)."""
    kw.setdefault("loc", "upper left")
    kw.setdefault("bbox_to_anchor", (1.01, 1.0))
    kw.setdefault("borderaxespad", 0.0)
    return ax.legend(fontsize=fontsize, **kw)


# ------------------------------------------------------------------------------ a check of the text
def _drawn_ticklabels(axis):
    """The tick labels ``axis`` draws (visible, non-empty, at a tick inside the view interval)."""
    try:
        ticks = axis._update_ticks()  # exactly the ticks drawn (matplotlib has no public equivalent)
    except AttributeError:  # pragma: no cover
        ticks = axis.get_major_ticks() + axis.get_minor_ticks()
    out = []
    for t in ticks:
        for lab in (t.label1, t.label2):
            if lab.get_visible() and lab.get_text().strip():
                out.append(lab)
    return out


def _data_points(ax, renderer, step: float = 2.0):
    """Display coordinates of what ``ax`` plots: the vertices of its lines (densified every ``step`` px
    along each segment, so that a straight line through a box is seen), its markers, and the offsets of
    its collections (scatter points, error-bar caps)."""
    from matplotlib.collections import Collection, LineCollection

    pts = []
    for ln in ax.get_lines():
        if not ln.get_visible():
            continue
        xy = ln.get_transform().transform(np.column_stack(ln.get_data()).astype(float))
        xy = xy[np.all(np.isfinite(xy), axis=1)]
        if len(xy) == 0:
            continue
        if ln.get_linestyle() not in ("None", "", " ", "none") and len(xy) > 1:
            seg = np.diff(xy, axis=0)
            n = np.maximum(1, np.ceil(np.hypot(seg[:, 0], seg[:, 1]) / step).astype(int))
            n = np.minimum(n, 2000)
            dense = [xy[i] + seg[i] * np.linspace(0, 1, n[i], endpoint=False)[:, None] for i in range(len(seg))]
            pts.append(np.vstack(dense + [xy[-1:]]))
        else:
            pts.append(xy)
    for c in ax.collections:
        if not c.get_visible() or isinstance(c, LineCollection):  # bands and error bars: their caps are lines
            continue
        if isinstance(c, Collection) and len(c.get_offsets()):
            off = c.get_offset_transform().transform(np.asarray(c.get_offsets(), dtype=float))
            pts.append(off[np.all(np.isfinite(off), axis=1)])
    return np.vstack(pts) if pts else np.zeros((0, 2))


def _handle_style(h):
    """(colour, line style, marker) of a legend handle, or None where it has none of them."""
    from matplotlib.colors import to_hex

    try:
        if hasattr(h, "get_color") and hasattr(h, "get_linestyle") and hasattr(h, "get_marker"):
            return to_hex(h.get_color()), str(h.get_linestyle()), str(h.get_marker())
        if hasattr(h, "lines") and h.lines and h.lines[0] is not None:  # an error-bar container
            return _handle_style(h.lines[0])
        def first(c):
            c = np.asarray(c)
            return "none" if c.size == 0 else to_hex(c[0] if c.ndim == 2 else c, keep_alpha=False)

        shape = ""
        if hasattr(h, "get_paths") and len(h.get_paths()):  # a scatter's marker: its path
            shape = str(np.round(h.get_paths()[0].vertices, 2).ravel().tolist())
        hatch = h.get_hatch() if hasattr(h, "get_hatch") else None
        return first(h.get_facecolor()), f"{first(h.get_edgecolor())} {hatch}", type(h).__name__ + shape
    except Exception:  # pragma: no cover - an unusual handle: not compared
        return None


def _style_clashes(lg, variant_suffix: str = " [official]") -> list[str]:
    """Legend entries that a reader cannot tell apart: two with the same colour, line style and marker;
    a ``variant_suffix`` variant whose colour is not its method's, or is another method's."""
    styles = {}
    try:  # every artist a legend entry draws (an error bar's entry: its line, marker and bar), by its text
        for column in lg._legend_handle_box.get_children():
            for row in column.get_children():
                area, text = row.get_children()[:2]
                parts = [_handle_style(a) for a in area.get_children()]
                styles[text.get_text()] = tuple(sorted(str(x) for x in parts if x is not None)) or None
    except (AttributeError, ValueError):  # pragma: no cover - matplotlib's private layout changed
        handles = getattr(lg, "legend_handles", None) or getattr(lg, "legendHandles", [])
        styles = {t.get_text(): _handle_style(h) for h, t in zip(handles, lg.get_texts())}
    styles = {k: v for k, v in styles.items() if v is not None}
    out = []
    labs = list(styles)
    for i in range(len(labs)):
        for j in range(i + 1, len(labs)):
            if styles[labs[i]] == styles[labs[j]]:
                out.append(f"legend entries {labs[i]!r} and {labs[j]!r} are drawn alike")

    import re

    def colours(lab):  # the colours an entry is drawn in (its line's, its marker's)
        return set(re.findall(r"#[0-9a-f]{6}", " ".join(styles[lab]))) - {"#000000"}

    def base(lab):
        core = lab.split(" (all ")[0]
        k = core.find(variant_suffix)
        return core[:k] if k >= 0 else None

    for lab in labs:
        b = base(lab)
        if b is None:
            continue
        mine = [m for m in labs if m != lab and (m == b or m.startswith(b + " (")) and base(m) is None]
        if mine and not colours(mine[0]) & colours(lab):
            out.append(f"{lab!r} is not drawn in the colour of {mine[0]!r}")
        for m in labs:
            if m != lab and m not in mine and (base(m) or m) != b and colours(m) & colours(lab) \
                    and not m.startswith(b + " ("):
                out.append(f"{lab!r} has the colour of another method, {m!r}")
    return out


def text_problems(fig, max_aspect: float | None = MAX_ASPECT, data_under_legend: bool = True) -> list[str]:
    """What makes ``fig``'s text unreadable at its size, as sentences (empty: none found). Uses
    matplotlib's renderer (each text's drawn extent) after ``fig.canvas.draw()``:

    - tick labels of one axis that overlap each other;
    - a legend that overlaps any other text (a tick label, a title, an axis label, an annotation,
      another legend) or, with ``data_under_legend``, covers what an axes plots (a line, a marker,
      a scatter point);
    - annotations and other free texts that overlap each other, a title or an axis label;
    - a text (or legend) that reaches outside the figure;
    - a saved (tight) image wider than ``max_aspect`` times its height.
    """
    from matplotlib.legend import Legend

    fig.canvas.draw()
    r = fig.canvas.get_renderer()
    fbox = fig.bbox
    probs = []

    def ext(a):
        return a.get_window_extent(r)

    def name(t):
        s = t.get_text().replace("\n", " ")
        return repr(s[:40])

    def overlap(a, b, tol=0.5):
        return (min(a.x1, b.x1) - max(a.x0, b.x0) > tol) and (min(a.y1, b.y1) - max(a.y0, b.y0) > tol)

    axes = [ax for ax in fig.axes if ax.get_visible() and (ax.axison or ax.texts)]
    labelled = []  # (where, text artist) of every text outside legends
    for k, ax in enumerate(axes):
        where = f"axes {k} ({ax.get_title()[:30]!r})"
        for axis, an in ((ax.xaxis, "x"), (ax.yaxis, "y")):
            if not ax.axison:
                continue
            labs = _drawn_ticklabels(axis)
            boxes = [ext(t) for t in labs]
            for i in range(len(labs)):
                for j in range(i + 1, len(labs)):
                    if overlap(boxes[i], boxes[j]):
                        probs.append(f"{where}: {an} tick labels {name(labs[i])} and {name(labs[j])} overlap")
            labelled += [(where, t) for t in labs]
            if axis.label.get_visible() and axis.label.get_text().strip():
                labelled.append((where, axis.label))
        for t in (ax.title, ax._left_title, ax._right_title):
            if t.get_visible() and t.get_text().strip():
                labelled.append((where, t))
    free = []  # annotations and texts placed on the axes or the figure
    for k, ax in enumerate(axes):
        free += [(f"axes {k}", t) for t in ax.texts if t.get_visible() and t.get_text().strip()]
    free += [("figure", t) for t in fig.texts if t.get_visible() and t.get_text().strip()]
    if getattr(fig, "_suptitle", None) is not None and fig._suptitle.get_text().strip():
        if all(t is not fig._suptitle for _, t in free):
            free.append(("figure", fig._suptitle))
    for i in range(len(free)):
        bi = ext(free[i][1])
        for j in range(i + 1, len(free)):
            if overlap(bi, ext(free[j][1])):
                probs.append(f"{free[i][0]}: texts {name(free[i][1])} and {name(free[j][1])} overlap")
        for where, t in labelled:
            if overlap(bi, ext(t)):
                probs.append(f"{free[i][0]}: text {name(free[i][1])} overlaps {name(t)} ({where})")
    legends = [(f"axes {k}", ax.get_legend()) for k, ax in enumerate(axes) if ax.get_legend() is not None]
    legends += [("figure", lg) for lg in fig.legends]
    legends = [(w, lg) for w, lg in legends if lg.get_visible()]
    for i, (where, lg) in enumerate(legends):
        lb = ext(lg)
        for w2, t in labelled + free:
            if overlap(lb, ext(t)):
                probs.append(f"{where}: the legend overlaps {name(t)} ({w2})")
        for w2, lg2 in legends[i + 1:]:
            if overlap(lb, ext(lg2)):
                probs.append(f"{where}: the legend overlaps the legend of {w2}")
        probs += [f"{where}: {m}" for m in _style_clashes(lg)]
        if data_under_legend:
            for k, ax in enumerate(axes):
                pts = _data_points(ax, r)
                if len(pts):
                    inside = (pts[:, 0] > lb.x0) & (pts[:, 0] < lb.x1) & (pts[:, 1] > lb.y0) & (pts[:, 1] < lb.y1)
                    # only what is drawn inside the axes (a clipped line outside it is not seen)
                    ab = ax.bbox
                    inside &= (pts[:, 0] >= ab.x0) & (pts[:, 0] <= ab.x1) & (pts[:, 1] >= ab.y0) & (pts[:, 1] <= ab.y1)
                    if inside.any():
                        probs.append(f"{where}: the legend covers {int(inside.sum())} plotted points of axes {k} "
                                     f"({ax.get_title()[:30]!r})")
    for where, t in labelled + free + legends:
        b = ext(t)
        if b.x0 < fbox.x0 - 1 or b.y0 < fbox.y0 - 1 or b.x1 > fbox.x1 + 1 or b.y1 > fbox.y1 + 1:
            what = "a legend" if isinstance(t, Legend) else name(t)
            probs.append(f"{where}: {what} reaches outside the figure")
    if max_aspect is not None:
        tb = fig.get_tightbbox(r)
        if tb.height > 0 and tb.width / tb.height > max_aspect:
            probs.append(f"the saved image is {tb.width / tb.height:.1f} times as wide as tall (at most {max_aspect:g})")
    return probs
