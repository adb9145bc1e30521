"""The profile's chart of results over time, drawn on the server as SVG geometry (profile's template).

One column a day: wins from the baseline up, losses above them, each with its count in a title; the
page's policy allows no inline style, so colours are SVG attributes (contrast 3:1 or more on white)."""

from __future__ import annotations

import datetime as dt

#: The drawing's size and margins, in SVG units (the figure scales to its box).
WIDTH, HEIGHT, LEFT, RIGHT, TOP, BOTTOM = 600, 160, 28, 8, 10, 24
WON_FILL, LOST_FILL = "#15803d", "#64748b"  # green 5.0:1 and slate 4.8:1 on white


def results_chart(by_day: list[dict]) -> dict:
    """Bars, axis labels and a summary in words of `statistics.by_day` ([{date, won, lost}], oldest first)."""
    plot_w = WIDTH - LEFT - RIGHT
    plot_h = HEIGHT - TOP - BOTTOM
    bottom = TOP + plot_h
    tallest = max([day["won"] + day["lost"] for day in by_day] + [1])
    step = plot_w / max(1, len(by_day))
    scale = plot_h / tallest
    bars = []
    for i, day in enumerate(by_day):
        x = round(LEFT + i * step + step * 0.15, 1)
        width = round(step * 0.7, 1)
        won_h = round(day["won"] * scale, 1)
        lost_h = round(day["lost"] * scale, 1)
        label = f"{day['date']}: {day['won']} won, {day['lost']} lost"
        if day["won"]:
            bars.append({"x": x, "y": round(bottom - won_h, 1), "width": width, "height": won_h, "fill": WON_FILL, "title": label, "kind": "won"})
        if day["lost"]:
            bars.append({"x": x, "y": round(bottom - won_h - lost_h, 1), "width": width, "height": lost_h, "fill": LOST_FILL, "title": label, "kind": "lost"})
    days = [dt.date.fromisoformat(day["date"]) for day in by_day]
    ticks = [
        {"x": round(LEFT + i * step + step / 2, 1), "label": f"{day:%b} {day.day}"}
        for i, day in enumerate(days)
        if i in (0, len(days) // 2, len(days) - 1)
    ]
    won = sum(day["won"] for day in by_day)
    lost = sum(day["lost"] for day in by_day)
    summary = f"Results of the last {len(by_day)} days: {won} won, {lost} lost" + (
        f"; most in one day {tallest}." if won + lost else "."
    )
    return {
        "width": WIDTH, "height": HEIGHT, "left": LEFT, "right": WIDTH - RIGHT, "bottom": bottom, "top": TOP,
        "tallest": tallest, "bars": bars, "ticks": ticks, "summary": summary, "empty": won + lost == 0,
        "won_fill": WON_FILL, "lost_fill": LOST_FILL, "label_y": bottom + 16,
    }
