// What the browser tests share: the system Chromium (never a downloaded one), one
// browser context per player, the platform's API for set-up (operator grants), and
// screenshots of the key moments under test-results/ (not committed).

import { mkdirSync, readFileSync } from "node:fs";
import { createHash, X509Certificate } from "node:crypto";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { createClient } from "@connectrpc/connect";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { LedgerService } from "../src/gen/gamehub/ledger/v1/ledger_pb.js";

/** Where `gamehub serve` serves the client (the CI step starts it). */
export const WEB = process.env.GAMEHUB_WEB_URL ?? "http://127.0.0.1:51380";
const CHROMIUM = process.env.CHROMIUM ?? "/usr/bin/chromium";
export const RESULTS = new URL("../test-results/", import.meta.url).pathname;

/**
 * Over TLS (`gamehub serve --tls`, docs/tls.md): GAMEHUB_WEB_TLS_CERT names the
 * certificate the platform serves, and Chromium accepts exactly that key (by the
 * SHA-256 of its SubjectPublicKeyInfo) and no other untrusted one. Node's own calls
 * (config.json, operator grants) trust the CA through NODE_EXTRA_CA_CERTS.
 */
function trustedKeyArgs(): string[] {
  const certFile = process.env.GAMEHUB_WEB_TLS_CERT;
  if (!certFile) return [];
  const key = new X509Certificate(readFileSync(certFile)).publicKey.export({ type: "spki", format: "der" });
  return [`--ignore-certificate-errors-spki-list=${createHash("sha256").update(key).digest("base64")}`];
}

export async function launch(): Promise<Browser> {
  mkdirSync(RESULTS, { recursive: true });
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      ...trustedKeyArgs(),
      "--headless",
      "--no-sandbox",
      "--disable-gpu",
      "--disable-quic",
      "--no-first-run",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-dev-shm-usage",
      // Several players' pages run at once and every one must keep up, not only the
      // one in front: no throttling of pages in the background.
      "--disable-background-timer-throttling",
      "--disable-renderer-backgrounding",
      "--disable-backgrounding-occluded-windows",
    ],
  });
}

/** A unique player name for this run. */
export function player(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}${Math.floor(Math.random() * 1e4)}`;
}

export interface Player {
  name: string;
  context: BrowserContext;
  page: Page;
  /** Browser errors and failed requests seen by the page (a test asserts none). */
  problems: string[];
}

/** The two screen sizes every page is tested at. */
export const SIZES = {
  desktop: { viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1, isMobile: false, hasTouch: false },
  phone: { viewport: { width: 390, height: 844 }, deviceScaleFactor: 2, isMobile: true, hasTouch: true },
} as const;
export type Size = keyof typeof SIZES;

export interface OpenOptions {
  /** The screen: `desktop` (1280×800, the default) or `phone` (390×844, touch). */
  size?: Size;
  /** The browser's language: `zh-CN` (the default: the page is then Chinese) or `en-US`. */
  locale?: string;
}

/** A player in a fresh browser context, signed in with a development token, in the lobby. */
export async function open(browser: Browser, name: string, options: OpenOptions = {}): Promise<Player> {
  const size = SIZES[options.size ?? "desktop"];
  const locale = options.locale ?? "zh-CN";
  const context = await browser.newContext({ ...size, locale, extraHTTPHeaders: { "accept-language": locale } });
  const page = await context.newPage();
  const problems: string[] = [];
  page.on("pageerror", (err) => problems.push(`page error: ${err.message}`));
  page.on("console", (msg) => {
    if (msg.type() === "error") problems.push(`console: ${msg.text()}`);
  });
  await page.goto(`${WEB}/?player=${encodeURIComponent(name)}`);
  await page.waitForSelector("#silver");
  return { name, context, page, problems };
}

/**
 * Fails unless every element `selector` matches lies wholly inside the viewport (no
 * scrolling needed to see or reach it) and the page does not overflow sideways.
 */
export async function assertInView(page: Page, selector: string): Promise<void> {
  const report = await page.$$eval(selector, (els) => {
    const w = window.innerWidth;
    const h = window.innerHeight;
    return els.map((e) => {
      const r = e.getBoundingClientRect();
      const inside = r.width > 0 && r.height > 0 && r.left >= -0.5 && r.top >= -0.5 && r.right <= w + 0.5 && r.bottom <= h + 0.5;
      return { inside, box: `${Math.round(r.left)},${Math.round(r.top)} ${Math.round(r.width)}×${Math.round(r.height)}`, w, h };
    });
  });
  if (report.length === 0) throw new Error(`${selector}: no element`);
  const outside = report.filter((r) => !r.inside);
  if (outside.length) throw new Error(`${selector}: ${outside.length} of ${report.length} outside the ${report[0]!.w}×${report[0]!.h} viewport, e.g. at ${outside[0]!.box}`);
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  if (overflow > 0) throw new Error(`the page overflows sideways by ${overflow} px`);
}

/** Sets the player's name (昵称) with the lobby's name field; the lobby then shows it. */
export async function setName(p: Player, name: string): Promise<void> {
  await p.page.fill("#name-input", name);
  await p.page.click("#save-name");
  await until(`${p.name}'s name ${name}`, async () => (await p.page.textContent("#account-name")) === name);
}

export async function shot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: `${RESULTS}${name}.png` });
}

/** Silver from the platform's operator (a token with role operator, from the CI step). */
export async function grant(playerId: string, amount: bigint): Promise<void> {
  const token = process.env.GAMEHUB_OPERATOR_TOKEN;
  if (!token) throw new Error("GAMEHUB_OPERATOR_TOKEN is not set (gamehub token ci-operator --role operator)");
  const config = (await (await fetch(`${WEB}/config.json`)).json()) as { services: { ledger: string } };
  const ledger = createClient(
    LedgerService,
    createGrpcWebTransport({
      baseUrl: config.services.ledger,
      interceptors: [(next) => (req) => (req.header.set("authorization", `Bearer ${token}`), next(req))],
    }),
  );
  await ledger.grantSilver({ requestId: crypto.randomUUID(), playerId, amountSilver: amount, reason: "browser test" });
}

/** Silver shown in the lobby. */
export async function lobbySilver(page: Page): Promise<bigint> {
  await page.waitForSelector("#silver");
  return BigInt((await page.getAttribute("#silver", "data-silver")) ?? "0");
}

/** Waits until `predicate` holds, polling; fails with `what` after `ms`. */
export async function until<T>(what: string, predicate: () => Promise<T | false | null | undefined>, ms = 20000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await predicate();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/**
 * Clicks `selector` on `page` until `done` holds. The table pages redraw their buttons
 * as events arrive, and a click whose press and release straddle a redraw lands on two
 * different elements and does nothing (a player clicks again; so does this): clicked
 * again only after `settle` ms without `done`, while the button is still there.
 */
export async function clickUntil(
  page: Page,
  selector: string,
  what: string,
  done: () => Promise<boolean>,
  ms = 60000,
  settle = 5000,
): Promise<void> {
  const deadline = Date.now() + ms;
  for (;;) {
    const button = await page.$(selector);
    if (button) await button.click({ timeout: 2000 }).catch(() => undefined);
    const retryAt = Date.now() + settle;
    while (Date.now() < retryAt) {
      if (await done()) return;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}

// ---- Gomoku at a table ---------------------------------------------------------------

/** Both players queue for `room` and are seated; returns [black, white]. */
export async function seat(a: Player, b: Player, room: string): Promise<[Player, Player]> {
  await a.page.click(`[data-room="${room}"] [data-action="play"]`);
  await a.page.waitForSelector('#ticket[data-state="WAITING"]');
  await shot(a.page, `${room}-queue`);
  await b.page.click(`[data-room="${room}"] [data-action="play"]`);
  const colorOf = (p: Page) =>
    until("a color at the table", async () => (await p.getAttribute("#status", "data-my-color").catch(() => null)) || null);
  const [colorA] = await Promise.all([colorOf(a.page), colorOf(b.page)]);
  return colorA === "black" ? [a, b] : [b, a];
}

/** `who` clicks `point`; both pages then show the stone. */
export async function place(who: Player, others: Player[], point: string): Promise<void> {
  await until(`${who.name}'s turn`, async () => (await who.page.getAttribute("#status", "data-my-turn")) === "true");
  await who.page.click(`[data-point="${point}"]`);
  for (const p of [who, ...others]) {
    await p.page.waitForSelector(`[data-point="${point}"][data-stone]:not([data-stone=""])`);
  }
}

export async function stones(page: Page): Promise<string[]> {
  return page.$$eval("[data-point]", (els) =>
    els.filter((e) => e.getAttribute("data-stone")).map((e) => `${e.getAttribute("data-point")}:${e.getAttribute("data-stone")}`),
  );
}

/**
 * At a friends' table's lobby the player owns: fills the two free seats with bots, says
 * ready once both sit there, and waits for the first hand. A tap that a redraw swallowed
 * (the lobby redraws as each bot sits down) is tapped again, only while the player is
 * not yet ready, so a second tap never takes the ready back.
 */
export async function playWithBots(page: Page): Promise<void> {
  await page.click("#add-bots");
  await until("both bots seated", async () => {
    const seated = await page.$$eval("#friends-seats [data-player]", (seats) =>
      seats.filter((s) => (s.getAttribute("data-player") ?? "").startsWith("bot-")).length,
    );
    return seated >= 2;
  }, 30000);
  const deadline = Date.now() + 60000;
  for (;;) {
    if (await page.$("#hand [data-card]")) return;
    const ready = await page.$("#ready");
    if (ready && !(await ready.evaluate((b) => b.classList.contains("toggled")))) {
      await ready.click().catch(() => undefined);
    }
    if (Date.now() > deadline) throw new Error("timed out waiting for the first hand at the bots' table");
    await page.waitForSelector("#hand [data-card]", { timeout: 3000 }).catch(() => undefined);
  }
}
