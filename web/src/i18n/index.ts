// The page's words, one file per language: `en.ts` defines every string (its shape is
// the type `Strings`), `zh.ts` gives the same keys in 简体中文, so a missing translation
// is a compile error. 简体中文 is the default for a browser that prefers Chinese, English
// for every other; the player's choice (the header's language switch) is remembered.
//
// Use: `S().lobby.play`, or for a sentence with values `S().gomoku.moveN(12)`.

import { en, type Strings } from "./en.js";
import { zh } from "./zh.js";

export type { Strings };

/** The languages the page speaks, as BCP 47 tags. */
export type Lang = "zh-CN" | "en";

export const LANGS: readonly { lang: Lang; label: string }[] = [
  { lang: "zh-CN", label: "简体中文" },
  { lang: "en", label: "English" },
];

const STORE_KEY = "gamehub.lang";
const TABLES: Record<Lang, Strings> = { "zh-CN": zh, en };

/** The language for a browser's preferences (`navigator.languages`): Chinese first. */
export function pickLang(preferred: readonly string[], stored: string | null): Lang {
  if (stored === "zh-CN" || stored === "en") return stored;
  for (const tag of preferred) {
    const t = tag.toLowerCase();
    if (t.startsWith("zh")) return "zh-CN";
    if (t.startsWith("en")) return "en";
  }
  return "zh-CN";
}

function storedLang(): string | null {
  try {
    return typeof localStorage === "undefined" ? null : localStorage.getItem(STORE_KEY);
  } catch {
    return null;
  }
}

let current: Lang = pickLang(typeof navigator === "undefined" ? [] : navigator.languages ?? [navigator.language], storedLang());

/** The page's language now. */
export function lang(): Lang {
  return current;
}

/** The strings of the page's language. */
export function S(): Strings {
  return TABLES[current];
}

/** The strings of one language (tests, and the language switch's labels). */
export function stringsOf(l: Lang): Strings {
  return TABLES[l];
}

/** Switches language, remembers it, and sets `<html lang>`; the caller redraws. */
export function setLang(l: Lang): void {
  current = l;
  try {
    localStorage.setItem(STORE_KEY, l);
  } catch {
    // private mode: the choice lasts for this page only
  }
  applyLang();
}

/** Sets `<html lang>` (fonts and screen readers follow it). */
export function applyLang(): void {
  if (typeof document !== "undefined") document.documentElement.lang = current === "zh-CN" ? "zh-CN" : "en";
}
