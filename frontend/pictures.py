"""The picture of a shared daily result, drawn as SVG by the server: nothing in it tells of the deal.

It shows the day, the four foundations (complete for a win), the moves against par, the time, the
rank, and the day's winning move counts with this result's marked: numbers the leaderboard already
shows, and no card of the deal's layout, no move and no position.
"""

from __future__ import annotations

from django.utils.html import escape

from games.daily.sharing import SharedResult, format_elapsed, summary

WIDTH, HEIGHT = 600, 340
SUITS = (("C", "\u2663", "#1a1a1a"), ("D", "\u2666", "#c8102e"), ("H", "\u2665", "#c8102e"), ("S", "\u2660", "#1a1a1a"))
MIN_SPAN = 12
FONT = "system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif"


def _text(x, y, text, *, size=16, weight="normal", fill="#fff", anchor="start", opacity=None) -> str:
    extra = f' opacity="{opacity}"' if opacity is not None else ""
    return (
        f'<text x="{x}" y="{y}" font-size="{size}" font-weight="{weight}" fill="{fill}" '
        f'text-anchor="{anchor}"{extra}>{escape(text)}</text>'
    )


def _foundations(won: bool) -> list[str]:
    """Four foundation piles: a king on each for a win, empty places otherwise."""
    parts = []
    for i, (_suit, symbol, colour) in enumerate(SUITS):
        x, y = 330 + i * 64, 28
        if won:
            parts.append(f'<rect x="{x}" y="{y}" width="56" height="78" rx="6" fill="#fff" stroke="#0b3b22"/>')
            parts.append(_text(x + 7, y + 20, "K", size=17, weight="bold", fill=colour))
            parts.append(_text(x + 28, y + 58, symbol, size=34, fill=colour, anchor="middle"))
        else:
            parts.append(f'<rect x="{x}" y="{y}" width="56" height="78" rx="6" fill="none" stroke="#fff" stroke-opacity=".45" stroke-dasharray="4 4"/>')
            parts.append(_text(x + 28, y + 52, symbol, size=30, fill="#fff", anchor="middle", opacity=".45"))
    return parts


def _histogram(result: SharedResult) -> list[str]:
    """The day's winning move counts as bars, this result's in gold."""
    left, right, top, bottom = 30, WIDTH - 30, 236, 306
    buckets = result.histogram
    parts = [_text(left, top - 10, "The day's winners by moves", size=13, opacity=".8")]
    if not buckets:
        parts.append(_text(left, bottom - 20, "No winner yet", size=15, opacity=".8"))
        return parts
    low, high = buckets[0][0], buckets[-1][0]
    if result.par is not None:  # par is drawn too, as the mark the day's winners aim at
        low, high = min(low, result.par), max(high, result.par)
    # At least a dozen move counts wide: one day's few results draw as bars, not as a block of felt.
    short = max(0, MIN_SPAN - (high - low + 1))
    low, high = max(0, low - short // 2), high + (short - short // 2)
    span = high - low + 1
    most = max(count for _moves, count in buckets)
    step = (right - left) / span
    width = max(2.0, step * 0.8)
    for moves, count in buckets:
        height = max(3.0, (bottom - top - 8) * count / most)
        x = left + (moves - low) * step + (step - width) / 2
        mine = result.won and moves == result.moves
        fill = "#f2c14e" if mine else "#fff"
        opacity = "1" if mine else ".55"
        parts.append(
            f'<rect x="{x:.1f}" y="{bottom - height:.1f}" width="{width:.1f}" height="{height:.1f}" fill="{fill}" opacity="{opacity}"/>'
        )
    parts.append(_text(left, bottom + 18, str(low), size=12, opacity=".8"))
    if high != low:
        parts.append(_text(right, bottom + 18, str(high), size=12, opacity=".8", anchor="end"))
    if result.par is not None and low <= result.par <= high:
        x = left + (result.par - low) * step + step / 2
        parts.append(f'<line x1="{x:.1f}" y1="{top}" x2="{x:.1f}" y2="{bottom}" stroke="#fff" stroke-dasharray="3 3" stroke-opacity=".8"/>')
        # Beside the line's top, clear of the axis's numbers below.
        near_end = x > right - 60
        parts.append(_text(x - 5 if near_end else x + 5, top + 10, f"par {result.par}", size=12, anchor="end" if near_end else "start", opacity=".9"))
    return parts


def result_svg(result: SharedResult) -> str:
    """The result's picture, an SVG document (inline in the result's page, or on its own)."""
    title = f"{result.username}'s daily {result.date.isoformat()}"
    if result.won:
        headline = f"{result.moves} moves"
        if result.over_par is not None:
            diff = result.over_par
            detail = f"par {result.par} ({'+' if diff >= 0 else ''}{diff})"
        else:
            detail = "won"
    else:
        headline = "Resigned"
        detail = f"after {result.moves} moves"
    undos = f"{result.undos} undo{'' if result.undos == 1 else 's'}"
    if result.rank is not None:
        standing = f"Rank {result.rank} of {result.of}"
    elif result.under_review:
        standing = "Under review"
    else:
        standing = "Not ranked"
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 {WIDTH} {HEIGHT}" width="{WIDTH}" height="{HEIGHT}" '
        f'role="img" aria-labelledby="result-title result-desc" font-family="{FONT}" data-testid="result-picture">',
        f'<title id="result-title">{escape(title)}</title>',
        f'<desc id="result-desc">{escape(summary(result))}</desc>',
        f'<rect width="{WIDTH}" height="{HEIGHT}" rx="18" fill="#17603a"/>',
        f'<rect x="8" y="8" width="{WIDTH - 16}" height="{HEIGHT - 16}" rx="12" fill="none" stroke="#fff" stroke-opacity=".15"/>',
        _text(30, 48, "FreeCell Online", size=15, opacity=".85"),
        _text(30, 78, f"Daily {result.date.isoformat()}", size=24, weight="bold"),
        _text(30, 100, result.username, size=15, opacity=".85"),
        *_foundations(result.won),
        _text(30, 160, headline, size=44, weight="bold"),
        _text(30, 190, f"{detail} \u00b7 {undos} \u00b7 {format_elapsed(result.elapsed_ms)}", size=18),
        _text(WIDTH - 30, 160, standing, size=22, weight="bold", anchor="end", fill="#f2c14e" if result.rank == 1 else "#fff"),
        *_histogram(result),
        "</svg>",
    ]
    return "".join(parts)
