// The UI font subset (web/src/fonts/gamehub-sc-ui.woff2, built by web/fonts/subset.py)
// covers every character the page's own sources use: a string added with a character
// outside it would show as a box on a machine without CJK fonts, or pull in the 1 MB
// common subset. Run `python3 web/fonts/subset.py …/NotoSansCJK-Regular.ttc` to fix a
// failure. No server, no browser.

import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";

const SRC = new URL("../src/", import.meta.url).pathname;

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return name === "gen" ? [] : sources(path);
    return name.endsWith(".ts") ? [path] : [];
  });
}

test("every non-ASCII character of web/src/**/*.ts (not src/gen) and index.html is in the UI font subset", () => {
  const covered = new Set(readFileSync(join(SRC, "fonts/ui-characters.txt"), "utf8"));
  const files = [...sources(SRC), join(SRC, "index.html")];
  assert.ok(files.some((f) => f.endsWith("lobby.ts")) && !files.some((f) => f.includes("/gen/")));
  const missing = new Map<string, string>();
  for (const file of files) {
    for (const ch of readFileSync(file, "utf8")) {
      if (ch.codePointAt(0)! <= 0x7f || /\s/u.test(ch)) continue;
      if (!covered.has(ch) && !missing.has(ch)) missing.set(ch, file.slice(SRC.length));
    }
  }
  assert.deepEqual([...missing].map(([ch, file]) => `${ch} (U+${ch.codePointAt(0)!.toString(16).toUpperCase()}) in ${file}`), []);
  assert.ok(covered.has("五") && covered.has("斗") && covered.has("银"), "the games' names and silver are covered");
});
