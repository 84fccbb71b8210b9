// The few DOM helpers the pages use: build elements, show a message, format things.

type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | EventListener | null | undefined>;

/** `h("button", { class: "primary", onclick: play }, "Play")` */
export function h<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  attrs: Attrs = {},
  ...children: Child[]
): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  setAttrs(el, attrs);
  appendAll(el, children);
  return el;
}

const SVG_NS = "http://www.w3.org/2000/svg";

/** The same for SVG elements. */
export function svg(tag: string, attrs: Attrs = {}, ...children: Child[]): SVGElement {
  const el = document.createElementNS(SVG_NS, tag);
  setAttrs(el, attrs);
  appendAll(el, children);
  return el;
}

function setAttrs(el: Element, attrs: Attrs): void {
  for (const [key, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (typeof value === "function") {
      el.addEventListener(key.replace(/^on/, ""), value);
    } else {
      el.setAttribute(key, value === true ? "" : String(value));
    }
  }
}

function appendAll(el: Element, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
}

/** Replaces the content of `el`. */
export function mount(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  appendAll(el, children);
}

/**
 * A short message at the top of the page: `error` stays until dismissed (or 8 s),
 * `info` fades. A toast belongs to the page it was raised on and goes when the route
 * changes (`clearToasts`), unless `forNext`: said on the way to the next page (“Seated
 * with 张三”), it stays on that one.
 */
export function toast(text: string, kind: "error" | "info" = "error", forNext = false): void {
  const box = document.getElementById("toasts");
  if (!box) return;
  const item = h("div", { class: `toast ${kind}`, role: kind === "error" ? "alert" : "status", "data-next": forNext ? "true" : null }, text);
  item.addEventListener("click", () => item.remove());
  box.append(item);
  while (box.children.length > 3) box.firstElementChild?.remove();
  setTimeout(() => item.remove(), kind === "error" ? 8000 : 3500);
}

/** Clears the toasts of the page left; those said for the page now opening stay (once). */
export function clearToasts(): void {
  const box = document.getElementById("toasts");
  if (!box) return;
  for (const item of [...box.children] as HTMLElement[]) {
    if (item.dataset.next === "true") delete item.dataset.next;
    else item.remove();
  }
}

/** 1234567 → "1,234,567" */
export function num(n: bigint | number): string {
  return Number(n).toLocaleString("en-US");
}

/** A signed amount: "+200", "−120", "0". */
export function signed(n: bigint | number): string {
  const v = Number(n);
  return v > 0 ? `+${num(v)}` : v < 0 ? `−${num(-v)}` : "0";
}

/** ms → "m:ss" (never negative). */
export function clock(ms: number): string {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}
