#!/usr/bin/env python3
"""Draws docs/outages-timeline.svg from the timelines OutageIntegrationTests writes.

Usage: python3 docs/scripts/outage-timeline.py [autoconfigure/target/outage] [docs/outages-timeline.svg]
Four panels (stop and freeze, stock Boot and lettuce-tuning): one dot per SET+GET pair at the moment it
started, its height how long it took (log scale), red when it failed; health requests as triangles on the
same axes, green UP, red DOWN, grey when no answer came; the outage shaded.
"""
import csv
import math
import os
import sys

SOURCE = sys.argv[1] if len(sys.argv) > 1 else "autoconfigure/target/outage"
TARGET = sys.argv[2] if len(sys.argv) > 2 else "docs/outages-timeline.svg"
PANELS = [("stock-stop", "Redis stopped: stock Spring Boot"), ("tuning-stop", "Redis stopped: lettuce-tuning"),
          ("stock-freeze", "Redis frozen (SIGSTOP): stock Spring Boot"),
          ("tuning-freeze", "Redis frozen (SIGSTOP): lettuce-tuning")]
WIDTH, PANEL_H, LEFT, TOP = 900, 170, 60, 40
PLOT_W = WIDTH - LEFT - 20
MIN_MS, MAX_MS = 1.0, 20000.0


def read(name):
    with open(os.path.join(SOURCE, name + ".csv")) as f:
        return list(csv.DictReader(f))


def y_of(duration, top, height):
    d = min(max(float(duration), MIN_MS), MAX_MS)
    return top + height - (math.log10(d) - math.log10(MIN_MS)) / (math.log10(MAX_MS) - math.log10(MIN_MS)) * height


def panel(rows, title, top, span):
    out = []
    height = PANEL_H - 50
    x = lambda ms: LEFT + float(ms) / span * PLOT_W
    start, end = float(rows[0]["outage_start_ms"]), float(rows[0]["outage_end_ms"])
    out.append(f'<text x="{LEFT}" y="{top - 8}" font-size="13" font-weight="bold">{title}</text>')
    out.append(f'<rect x="{x(start):.1f}" y="{top + 14}" width="{x(end) - x(start):.1f}" height="{height}" fill="#f3e3c3"/>')
    out.append(f'<rect x="{LEFT}" y="{top + 14}" width="{PLOT_W}" height="{height}" fill="none" stroke="#999"/>')
    for ms in (1, 10, 100, 1000, 10000):
        y = y_of(ms, top + 14, height)
        label = f"{ms} ms" if ms < 1000 else f"{ms // 1000} s"
        out.append(f'<line x1="{LEFT - 4}" x2="{LEFT + PLOT_W}" y1="{y:.1f}" y2="{y:.1f}" stroke="#e5e5e5"/>')
        out.append(f'<text x="{LEFT - 6}" y="{y + 4:.1f}" font-size="10" text-anchor="end">{label}</text>')
    drawn = set()
    for row in rows:
        if row["kind"] == "health":
            color = {"up": "#2a9d3a", "down": "#d62728"}.get(row["outcome"], "#888")
            cx, cy = x(row["start_ms"]), y_of(row["duration_ms"], top + 14, height)
            out.append(f'<polygon points="{cx:.1f},{cy - 5:.1f} {cx - 4:.1f},{cy + 3:.1f} {cx + 4:.1f},{cy + 3:.1f}" '
                       f'fill="{color}" stroke="white" stroke-width="0.5"/>')
        else:
            color = "#1f5fbf" if row["outcome"] == "ok" else "#d62728"
            cx, cy = x(row["start_ms"]), y_of(row["duration_ms"], top + 14, height)
            # Tens of thousands of commands land on a few thousand half-pixels: draw each once
            spot = (color, round(cx * 2), round(cy * 2))
            if spot not in drawn:
                drawn.add(spot)
                out.append(f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="1.6" fill="{color}" fill-opacity="0.5"/>')
    return out


def main():
    data = {name: read(name) for name, _ in PANELS}
    span = max(float(r["start_ms"]) for rows in data.values() for r in rows) + 500
    body = []
    for i, (name, title) in enumerate(PANELS):
        body += panel(data[name], title, TOP + i * PANEL_H, span)
    axis_y = TOP + len(PANELS) * PANEL_H - 25
    for s in range(0, int(span / 1000) + 1, 2):
        xs = LEFT + s * 1000 / span * PLOT_W
        body.append(f'<text x="{xs:.1f}" y="{axis_y}" font-size="10" text-anchor="middle">{s} s</text>')
    height = axis_y + 44
    legend = (f'<text x="{LEFT}" y="{height - 22}" font-size="11">Dots: SET+GET pairs of 16 threads, by start time '
              '(x) and duration (y, log); blue succeeded, red failed. Shaded: the outage.</text>'
              f'<text x="{LEFT}" y="{height - 8}" font-size="11">Triangles: /actuator/health requests, four a second, '
              'by start time and duration; green UP, red DOWN, grey no answer before the test ended.</text>')
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{WIDTH}" height="{height}" font-family="sans-serif">',
           f'<rect width="{WIDTH}" height="{height}" fill="white"/>'] + body + [legend, '</svg>']
    with open(TARGET, "w") as f:
        f.write("\n".join(svg) + "\n")
    print("wrote", TARGET)


if __name__ == "__main__":
    main()
