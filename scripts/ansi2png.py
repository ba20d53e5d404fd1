#!/usr/bin/env python3
"""Render a terminal capture with ANSI colours (`tmux capture-pane -e -p`) to a PNG.

Usage: ansi2png.py CAPTURE.txt OUT.png [--light] [--cols N] [--rows N]

Needs Pillow (`pip install pillow`) and DejaVu Sans Mono (Debian: fonts-dejavu-core).
Understands the SGR codes tmux emits: reset, bold, dim, reverse, the 16 colours, 256-colour
and true-colour foregrounds and backgrounds.
"""
import re
import sys

from PIL import Image, ImageDraw, ImageFont

FONT_DIR = "/usr/share/fonts/truetype/dejavu/"
SIZE = 16

# A common xterm-like palette: 8 normal, 8 bright.
PALETTE = [
    (0x1d, 0x1f, 0x21), (0xcc, 0x34, 0x2b), (0x19, 0x8a, 0x44), (0xc9, 0x8a, 0x14),
    (0x39, 0x71, 0xed), (0xa3, 0x6a, 0xc7), (0x2a, 0x9d, 0xa8), (0xc5, 0xc8, 0xc6),
    (0x66, 0x66, 0x66), (0xf2, 0x5a, 0x51), (0x3c, 0xc7, 0x6c), (0xf0, 0xc6, 0x74),
    (0x6c, 0x9e, 0xf8), (0xc7, 0x8f, 0xe8), (0x57, 0xc9, 0xd4), (0xff, 0xff, 0xff),
]


def color256(n):
    if n < 16:
        return PALETTE[n]
    if n < 232:
        n -= 16
        steps = [0, 95, 135, 175, 215, 255]
        return (steps[n // 36], steps[(n // 6) % 6], steps[n % 6])
    v = 8 + (n - 232) * 10
    return (v, v, v)


# Braille dot bits by (column, row) inside a cell.
BRAILLE = [(0, 0, 0x01), (0, 1, 0x02), (0, 2, 0x04), (0, 3, 0x40),
           (1, 0, 0x08), (1, 1, 0x10), (1, 2, 0x20), (1, 3, 0x80)]


def braille(d, px, py, cw, ch, bits, fill):
    """Draw a braille cell as dots (fonts often lack the block)."""
    r = max(1, cw // 6)
    for cx, cy, bit in BRAILLE:
        if bits & bit:
            x = px + (cx * 2 + 1) * cw / 4
            y = py + (cy * 2 + 1) * ch / 8
            d.ellipse([x - r, y - r, x + r, y + r], fill=fill)


def parse(text, cols, rows):
    """Return rows of cells: (char, fg, bg, bold, dim, reverse); fg/bg None = default."""
    grid = []
    for line in text.split("\n")[:rows]:
        cells = []
        fg = bg = None
        bold = dim = rev = False
        i = 0
        while i < len(line):
            m = re.match(r"\x1b\[([0-9;]*)m", line[i:])
            if m:
                codes = [int(c) if c else 0 for c in m.group(1).split(";")] if m.group(1) else [0]
                j = 0
                while j < len(codes):
                    c = codes[j]
                    if c == 0:
                        fg = bg = None
                        bold = dim = rev = False
                    elif c == 1:
                        bold = True
                    elif c == 2:
                        dim = True
                    elif c == 7:
                        rev = True
                    elif c == 22:
                        bold = dim = False
                    elif c == 27:
                        rev = False
                    elif 30 <= c <= 37:
                        fg = PALETTE[c - 30]
                    elif c == 39:
                        fg = None
                    elif 40 <= c <= 47:
                        bg = PALETTE[c - 40]
                    elif c == 49:
                        bg = None
                    elif 90 <= c <= 97:
                        fg = PALETTE[c - 90 + 8]
                    elif 100 <= c <= 107:
                        bg = PALETTE[c - 100 + 8]
                    elif c in (38, 48) and j + 1 < len(codes):
                        if codes[j + 1] == 5 and j + 2 < len(codes):
                            col = color256(codes[j + 2])
                            j += 2
                        elif codes[j + 1] == 2 and j + 4 < len(codes):
                            col = tuple(codes[j + 2:j + 5])
                            j += 4
                        else:
                            col = None
                        if c == 38:
                            fg = col
                        else:
                            bg = col
                    j += 1
                i += m.end()
                continue
            if line[i] == "\x1b":  # other escapes: skip
                m = re.match(r"\x1b[^a-zA-Z]*[a-zA-Z]", line[i:])
                i += m.end() if m else 1
                continue
            cells.append((line[i], fg, bg, bold, dim, rev))
            i += 1
        grid.append(cells[:cols])
    return grid


def main():
    args = sys.argv[1:]
    light = "--light" in args
    cols = int(args[args.index("--cols") + 1]) if "--cols" in args else None
    rows = int(args[args.index("--rows") + 1]) if "--rows" in args else None
    src, out = [a for a in args if not a.startswith("--") and not a.isdigit()][:2]
    text = open(src, encoding="utf-8", errors="replace").read().rstrip("\n")
    lines = text.split("\n")
    rows = rows or len(lines)
    plain = [re.sub(r"\x1b\[[0-9;]*[a-zA-Z]", "", l) for l in lines]
    cols = cols or max(len(l) for l in plain)
    grid = parse(text, cols, rows)

    regular = ImageFont.truetype(FONT_DIR + "DejaVuSansMono.ttf", SIZE)
    boldf = ImageFont.truetype(FONT_DIR + "DejaVuSansMono-Bold.ttf", SIZE)
    cw = round(regular.getlength("M"))
    ch = SIZE + 4
    default_bg = (0xfa, 0xfa, 0xf7) if light else (0x1d, 0x1f, 0x21)
    default_fg = (0x20, 0x20, 0x20) if light else (0xd8, 0xd8, 0xd8)
    pad = 12
    img = Image.new("RGB", (cols * cw + 2 * pad, rows * ch + 2 * pad), default_bg)
    d = ImageDraw.Draw(img)
    for y, cells in enumerate(grid):
        for x, (c, fg, bg, bold, dim, rev) in enumerate(cells):
            f = fg or default_fg
            b = bg or default_bg
            if rev:
                f, b = b, f
            if dim:
                f = tuple((a + bb) // 2 for a, bb in zip(f, b))
            px, py = pad + x * cw, pad + y * ch
            if b != default_bg:
                d.rectangle([px, py, px + cw - 1, py + ch - 1], fill=b)
            if 0x2800 <= ord(c) <= 0x28FF:
                braille(d, px, py, cw, ch, ord(c) - 0x2800, f)
            elif c != " ":
                d.text((px, py + 1), c, font=boldf if bold else regular, fill=f)
    # A palette of the colours drawn (a few dozen) keeps the file small.
    img.quantize(colors=64).save(out, optimize=True)


if __name__ == "__main__":
    main()
