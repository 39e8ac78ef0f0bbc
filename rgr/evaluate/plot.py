"""The report's plot, a PNG written with zlib and struct alone (no plotting library):
for each measure, one bar per mode with its 95 % interval as a whisker. Text is drawn in
a 3x5 pixel font, scaled."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence
from pathlib import Path

RGB = tuple[int, int, int]
WHITE: RGB = (255, 255, 255)
BLACK: RGB = (30, 30, 30)
GREY: RGB = (200, 200, 200)
COLOURS: dict[str, RGB] = {"bare": (230, 126, 34), "tdd-prompt": (142, 68, 173),
                           "rgr": (39, 174, 96)}

SHORT = {"tdd-prompt": "tdd"}

# 3x5 glyphs, rows top to bottom, 3 bits each (4 = left pixel).
_FONT = {
    "A": (2, 5, 7, 5, 5), "B": (6, 5, 6, 5, 6), "C": (3, 4, 4, 4, 3), "D": (6, 5, 5, 5, 6),
    "E": (7, 4, 6, 4, 7), "F": (7, 4, 6, 4, 4), "G": (3, 4, 5, 5, 3), "H": (5, 5, 7, 5, 5),
    "I": (7, 2, 2, 2, 7), "J": (1, 1, 1, 5, 2), "K": (5, 5, 6, 5, 5), "L": (4, 4, 4, 4, 7),
    "M": (5, 7, 7, 5, 5), "N": (6, 5, 5, 5, 5), "O": (2, 5, 5, 5, 2), "P": (6, 5, 6, 4, 4),
    "Q": (2, 5, 5, 6, 3), "R": (6, 5, 6, 5, 5), "S": (3, 4, 2, 1, 6), "T": (7, 2, 2, 2, 2),
    "U": (5, 5, 5, 5, 7), "V": (5, 5, 5, 5, 2), "W": (5, 5, 7, 7, 5), "X": (5, 5, 2, 5, 5),
    "Y": (5, 5, 2, 2, 2), "Z": (7, 1, 2, 4, 7), "0": (7, 5, 5, 5, 7), "1": (2, 6, 2, 2, 7),
    "2": (6, 1, 2, 4, 7), "3": (6, 1, 2, 1, 6), "4": (5, 5, 7, 1, 1), "5": (7, 4, 6, 1, 6),
    "6": (3, 4, 7, 5, 7), "7": (7, 1, 2, 2, 2), "8": (7, 5, 7, 5, 7), "9": (7, 5, 7, 1, 6),
    " ": (0, 0, 0, 0, 0), "-": (0, 0, 7, 0, 0), ".": (0, 0, 0, 0, 2), "%": (5, 1, 2, 4, 5),
    "/": (1, 1, 2, 4, 4), "(": (1, 2, 2, 2, 1), ")": (4, 2, 2, 2, 4), ":": (0, 2, 0, 2, 0),
}


class Canvas:
    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height
        self.pixels = bytearray(bytes(WHITE) * width * height)

    def rect(self, x: int, y: int, w: int, h: int, colour: RGB) -> None:
        for row in range(max(0, y), min(self.height, y + h)):
            start = (row * self.width + max(0, x)) * 3
            end = (row * self.width + min(self.width, x + w)) * 3
            if end > start:
                self.pixels[start:end] = bytes(colour) * ((end - start) // 3)

    def text(self, x: int, y: int, words: str, colour: RGB = BLACK, scale: int = 2) -> None:
        for index, char in enumerate(words.upper()):
            glyph = _FONT.get(char, _FONT[" "])
            for row, bits in enumerate(glyph):
                for column in range(3):
                    if bits & (4 >> column):
                        self.rect(x + (index * 4 + column) * scale, y + row * scale,
                                  scale, scale, colour)

    def png(self) -> bytes:
        raw = b"".join(b"\x00" + bytes(self.pixels[r * self.width * 3:(r + 1) * self.width * 3])
                       for r in range(self.height))

        def chunk(kind: bytes, data: bytes) -> bytes:
            return (struct.pack(">I", len(data)) + kind + data
                    + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF))

        header = struct.pack(">IIBBBBB", self.width, self.height, 8, 2, 0, 0, 0)
        return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header)
                + chunk(b"IDAT", zlib.compress(raw, 9)) + chunk(b"IEND", b""))


#: The rates the plot shows, by their key in the report's JSON.
MEASURES = (("solved", "SOLVED"), ("hiddenTestsPassed", "HIDDEN TESTS PASSED"),
            ("regressed", "RUNS WITH A REGRESSION"),
            ("testsEditedOrRemoved", "RUNS THAT EDITED TESTS"))


def draw(modes: dict[str, dict[str, object]], title: str = "") -> bytes:
    """One panel per measure; bars 0-100 %, whiskers the Wilson interval."""
    names = list(modes)
    bar, gap, panel_h, top = 36, 10, 220, 50
    panel_w = max(200, len(names) * (bar + gap) + 40)
    width = 60 + panel_w * len(MEASURES)
    canvas = Canvas(width, top + panel_h + 70)
    canvas.text(10, 10, title or "RGR EVAL: 95% WILSON INTERVALS", scale=3)
    base_y = top + panel_h
    for p, (key, label) in enumerate(MEASURES):
        left = 50 + p * panel_w
        canvas.text(left, top - 14, label)
        for tick in (0, 50, 100):
            y = base_y - tick * (panel_h - 20) // 100
            canvas.rect(left - 4, y, panel_w - 20, 1, GREY)
            if p == 0:
                canvas.text(6, y - 4, f"{tick}%")
        for index, mode in enumerate(names):
            rate = modes[mode][key]
            assert isinstance(rate, dict)
            x = left + 10 + index * (bar + gap)
            if rate["trials"]:
                height = int(float(rate["value"]) * (panel_h - 20))
                canvas.rect(x, base_y - height, bar, max(height, 1), COLOURS.get(mode, BLACK))
                low = base_y - int(float(rate["low"]) * (panel_h - 20))
                high = base_y - int(float(rate["high"]) * (panel_h - 20))
                canvas.rect(x + bar // 2 - 1, high, 3, max(low - high, 1), BLACK)
                canvas.rect(x + bar // 2 - 6, high, 13, 2, BLACK)
                canvas.rect(x + bar // 2 - 6, low, 13, 2, BLACK)
            canvas.text(x, base_y + 8, SHORT.get(mode, mode)[:5])
    for index, mode in enumerate(names):
        x = 50 + index * 180
        canvas.rect(x, base_y + 40, 14, 14, COLOURS.get(mode, BLACK))
        canvas.text(x + 20, base_y + 42, mode)
    return canvas.png()


def write(path: Path, modes: dict[str, dict[str, object]], title: str = "") -> Path:
    path.write_bytes(draw(modes, title))
    return path


def sizes(data: bytes) -> Sequence[int]:
    """(width, height) of a PNG, read from its header (for tests)."""
    return struct.unpack(">II", data[16:24])
