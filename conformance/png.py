"""A tiny PNG writer (zlib + struct, no dependencies) with a canvas that fills rectangles and draws
text in a 3x5 pixel font: enough for the report's bar chart where matplotlib is not installed.

PNG layout (ISO/IEC 15948, "PNG specification", sections 5 and 11): the 8-byte signature, then
chunks length | type | data | CRC-32(type + data): IHDR (width, height, bit depth 8, colour type 2 =
RGB, compression 0, filter 0, interlace 0), one IDAT holding the zlib stream of the scanlines (each
prefixed by filter type 0 = None), IEND.
"""
import struct
import zlib

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
BIT_DEPTH = 8
COLOUR_TYPE_RGB = 2
FILTER_NONE = 0
ZLIB_LEVEL = 9

WHITE = (255, 255, 255)
BLACK = (0, 0, 0)

FONT_WIDTH, FONT_HEIGHT = 3, 5
FONT = {
    "A": ".#. #.# ### #.# #.#", "B": "##. #.# ##. #.# ##.", "C": ".## #.. #.. #.. .##", "D": "##. #.# #.# #.# ##.",
    "E": "### #.. ##. #.. ###", "F": "### #.. ##. #.. #..", "G": ".## #.. #.# #.# .##", "H": "#.# #.# ### #.# #.#",
    "I": "### .#. .#. .#. ###", "J": "..# ..# ..# #.# .#.", "K": "#.# #.# ##. #.# #.#", "L": "#.. #.. #.. #.. ###",
    "M": "#.# ### ### #.# #.#", "N": "##. #.# #.# #.# #.#", "O": ".#. #.# #.# #.# .#.", "P": "##. #.# ##. #.. #..",
    "Q": ".#. #.# #.# ##. .##", "R": "##. #.# ##. #.# #.#", "S": ".## #.. .#. ..# ##.", "T": "### .#. .#. .#. .#.",
    "U": "#.# #.# #.# #.# ###", "V": "#.# #.# #.# #.# .#.", "W": "#.# #.# ### ### #.#", "X": "#.# #.# .#. #.# #.#",
    "Y": "#.# #.# .#. .#. .#.", "Z": "### ..# .#. #.. ###",
    "0": "### #.# #.# #.# ###", "1": ".#. ##. .#. .#. ###", "2": "##. ..# .#. #.. ###", "3": "##. ..# .#. ..# ##.",
    "4": "#.# #.# ### ..# ..#", "5": "### #.. ##. ..# ##.", "6": ".## #.. ### #.# ###", "7": "### ..# .#. .#. .#.",
    "8": "### #.# ### #.# ###", "9": "### #.# ### ..# ##.",
    ".": "... ... ... ... .#.", "-": "... ... ### ... ...", "_": "... ... ... ... ###", ":": "... .#. ... .#. ...",
    "(": ".#. #.. #.. #.. .#.", ")": ".#. ..# ..# ..# .#.", "/": "..# ..# .#. #.. #..", "+": "... .#. ### .#. ...",
    ",": "... ... ... .#. #..", "=": "... ### ... ### ...", " ": "... ... ... ... ...",
}
"""3x5 glyphs, rows top to bottom ('#' = ink). Lowercase letters are drawn as capitals; an unknown
character as a blank."""


def png_bytes(width: int, height: int, rows: list[bytearray]) -> bytes:
    """The PNG file of an RGB image: ``rows`` are ``height`` scanlines of 3 * ``width`` bytes."""
    if len(rows) != height or any(len(r) != 3 * width for r in rows):
        raise ValueError(f"expected {height} rows of {3 * width} bytes")

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)

    header = struct.pack(">IIBBBBB", width, height, BIT_DEPTH, COLOUR_TYPE_RGB, 0, 0, 0)
    raw = b"".join(bytes([FILTER_NONE]) + bytes(r) for r in rows)
    return PNG_SIGNATURE + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(raw, ZLIB_LEVEL)) + chunk(b"IEND", b"")


class Canvas:
    """An RGB pixel buffer: filled rectangles and 3x5-font text, then ``png()``."""

    def __init__(self, width: int, height: int, background=WHITE):
        self.width, self.height = width, height
        self.rows = [bytearray(bytes(background) * width) for _ in range(height)]

    def fill(self, x0: int, y0: int, x1: int, y1: int, colour) -> None:
        """Pixels x0 <= x < x1, y0 <= y < y1 (clipped to the canvas)."""
        x0, x1 = max(0, x0), min(self.width, x1)
        span = bytes(colour) * max(0, x1 - x0)
        for y in range(max(0, y0), min(self.height, y1)):
            self.rows[y][3 * x0 : 3 * x1] = span

    def text(self, x: int, y: int, text: str, colour=BLACK, scale: int = 2) -> int:
        """Draw text with its top-left corner at (x, y); returns the x just past it."""
        for char in text.upper():
            glyph = FONT.get(char, FONT[" "]).split()
            for row, bits in enumerate(glyph):
                for column, bit in enumerate(bits):
                    if bit == "#":
                        px, py = x + column * scale, y + row * scale
                        self.fill(px, py, px + scale, py + scale, colour)
            x += (FONT_WIDTH + 1) * scale
        return x

    @staticmethod
    def text_width(text: str, scale: int = 2) -> int:
        return len(text) * (FONT_WIDTH + 1) * scale

    def pixel(self, x: int, y: int) -> tuple[int, int, int]:
        return tuple(self.rows[y][3 * x : 3 * x + 3])

    def png(self) -> bytes:
        return png_bytes(self.width, self.height, self.rows)
