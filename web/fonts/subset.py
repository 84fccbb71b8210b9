#!/usr/bin/env python3
"""Builds the web client's two CJK font subsets from Noto Sans CJK SC (SIL OFL 1.1).

A machine without CJK fonts shows boxes for Chinese; the client ships its own:

- `gamehub-sc-ui.woff2`: every character the page's own strings use (web/src/**/*.ts,
  index.html: the 简体中文 strings, the games' terms, digits, Latin, the card suits),
  loaded with the page;
- `gamehub-sc-common.woff2`: the 3,755 characters of GB 2312 level 1 (常用字) and CJK
  punctuation, which the browser fetches only when a player's name (or another text from
  the server) uses a character the first one lacks (CSS `unicode-range`).

Both are renamed "gamehub Sans SC" and licensed under the OFL (LICENSE-OFL.txt). The
source is Debian's fonts-noto-cjk package, extracted without installing it:

    apt-get download fonts-noto-cjk && dpkg-deb -x fonts-noto-cjk_*.deb /tmp/noto
    pip install fonttools brotli
    python3 web/fonts/subset.py /tmp/noto/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc

It writes the two files and `ui-characters.txt` (what the first covers) into
web/src/fonts/; `npm run build` copies them to dist/fonts/. A unit test
(tests/fonts.test.ts) fails when a string of the page uses a character outside
ui-characters.txt: run this script again then.
"""

import pathlib
import re
import sys

from fontTools import subset
from fontTools.ttLib import TTCollection

WEB = pathlib.Path(__file__).resolve().parent.parent
OUT = WEB / "src" / "fonts"
SC_INDEX = 2  # Noto Sans CJK SC in the collection
FAMILY = "gamehub Sans SC"


def page_characters() -> set[str]:
    """Every non-ASCII character in the page's sources, plus printable ASCII."""
    chars = {chr(c) for c in range(0x20, 0x7F)}
    sources = [p for p in (WEB / "src").rglob("*.ts") if "gen" not in p.parts]
    sources.append(WEB / "src" / "index.html")
    for path in sorted(sources):
        text = path.read_text(encoding="utf-8")
        chars.update(ch for ch in text if ord(ch) > 0x7F and not ch.isspace())
    # What the page draws that is not in a string literal: suits, jokers, arrows, dashes.
    chars.update("♠♥♣♦♤♡♧♢·×÷—–−…‘’“”←→↑↓✓✗●○★☆")
    return {ch for ch in chars if ch.isprintable()}


def common_characters() -> set[str]:
    """GB 2312 level 1 (rows 16–55: the 3,755 常用字) and CJK punctuation."""
    chars = set()
    for row in range(0xB0, 0xD8):
        for col in range(0xA1, 0xFF):
            try:
                chars.add(bytes([row, col]).decode("gb2312"))
            except UnicodeDecodeError:
                pass
    chars.update(chr(c) for c in range(0x3000, 0x3040))  # CJK symbols and punctuation
    chars.update(chr(c) for c in range(0xFF01, 0xFF5F))  # full-width forms
    return chars


def write(collection: str, chars: set[str], name: str) -> None:
    font = TTCollection(collection).fonts[SC_INDEX]
    options = subset.Options()
    options.flavor = "woff2"
    options.layout_features = ["kern", "liga", "vert", "locl"]
    options.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14]
    options.name_languages = [0x409]
    options.notdef_outline = True
    options.hinting = False
    subsetter = subset.Subsetter(options)
    subsetter.populate(unicodes=[ord(c) for c in chars])
    subsetter.subset(font)
    for record in font["name"].names:
        if record.nameID in (1, 16):
            record.string = FAMILY
        elif record.nameID in (4,):
            record.string = f"{FAMILY} Regular"
        elif record.nameID == 6:
            record.string = FAMILY.replace(" ", "") + "-Regular"
    # Same bytes for the same input: no timestamps.
    font["head"].created = font["head"].modified = 0
    subset.save_font(font, str(OUT / name), options)


def main() -> None:
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    OUT.mkdir(parents=True, exist_ok=True)
    ui = page_characters()
    write(sys.argv[1], ui, "gamehub-sc-ui.woff2")
    write(sys.argv[1], common_characters() - ui, "gamehub-sc-common.woff2")
    cjk = sorted(ch for ch in ui if ord(ch) > 0x7F)
    (OUT / "ui-characters.txt").write_text("".join(cjk) + "\n", encoding="utf-8")
    for name in ("gamehub-sc-ui.woff2", "gamehub-sc-common.woff2"):
        print(name, (OUT / name).stat().st_size, "bytes")
    print(len(cjk), "non-ASCII characters in the page's own subset")


if __name__ == "__main__":
    main()
