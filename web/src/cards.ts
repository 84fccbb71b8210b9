// Dou Dizhu's cards and plays in words, pure (no DOM, no server): the hand high to low as
// Chinese players hold it, ranks and cards as players read them, a combination and a
// 癞子 (laizi) play with what its wild cards stood for, and the readings of the selected
// cards among Hint's plays. No rule is decided here: which plays exist and what they are
// is the server's word (Hint, Turn); this module only puts it into words and matches it.

import { S } from "./i18n/index.js";
import { BombClass, Kind, type Combination, type Hint } from "./gen/gamehub/doudizhu/v1/doudizhu_pb.js";

const SUITS: Record<string, string> = { S: "♠", H: "♥", C: "♣", D: "♦" };
/** Rank text, low to high: the ranks, then 小王 (X) and 大王 (D). */
const RANK_ORDER = "3456789TJQKA2XD";
const SUIT_ORDER = "SHCD";

/** A card's rank text: "S5" → "5", "HT" → "T", "BJ" (小王) → "X", "RJ" (大王) → "D". */
export function cardRank(card: string): string {
  if (card === "BJ") return "X";
  if (card === "RJ") return "D";
  return card.slice(1);
}

/** A card's place in display order (higher is stronger): 3 … 2, then 小王, 大王. */
function cardWeight(card: string): number {
  return RANK_ORDER.indexOf(cardRank(card)) * 4 + (3 - Math.max(SUIT_ORDER.indexOf(card[0] ?? ""), 0));
}

/** Cards as Chinese players hold them: 大王 小王 2 A K … 3, high to low. */
export function highToLow(cards: readonly string[]): string[] {
  return [...cards].sort((a, b) => cardWeight(b) - cardWeight(a));
}

/** One rank of rank text ("T", "X", "D", …) in words: 10, 小王, 大王. */
export function rankWord(rank: string): string {
  if (rank === "T") return "10";
  if (rank === "X") return S().doudizhu.smallJokerText;
  if (rank === "D") return S().doudizhu.bigJokerText;
  return rank;
}

/** Card text ("HT", "BJ") as a player reads it: "♥10", "小王". */
export function cardWords(card: string): string {
  if (card === "BJ" || card === "RJ") return rankWord(cardRank(card));
  return `${SUITS[card[0] ?? ""] ?? ""}${rankWord(card.slice(1))}`;
}

/** Rank text low to high ("5557" → ["5", "5", "5", "7"]). */
function lowToHigh(ranks: Iterable<string>): string[] {
  return [...ranks].sort((a, b) => RANK_ORDER.indexOf(a) - RANK_ORDER.indexOf(b));
}

/** Ranks in words, low to high: "10 J Q K A", "小王 大王". */
export function rankListWords(ranks: Iterable<string>): string {
  return lowToHigh(ranks).map(rankWord).join(" ");
}

/** A play's cards as ranks in words, low to high: "10 J Q K A", "小王 大王". */
export function ranksWords(cards: readonly string[]): string {
  return rankListWords(cards.map(cardRank));
}

/**
 * Whether a card is wild (癞子) at a table whose wild rank is `wildRank` (rank text; ""
 * where there is none): every card of that rank is, a joker never.
 */
export function isWild(card: string, wildRank: string): boolean {
  return wildRank !== "" && card !== "BJ" && card !== "RJ" && card.slice(1) === wildRank;
}

/**
 * What a laizi play's wild cards stood for, low to high: the ranks of `meant` that the
 * play's other cards do not account for ("5557" with 555 and a wild 7 meant as "5555"
 * → ["5"]). Empty when the play holds no wild card or says no reading.
 */
export function wildStandsFor(cards: readonly string[], meant: string, wildRank: string): string[] {
  if (meant === "" || !cards.some((c) => isWild(c, wildRank))) return [];
  const left = [...meant];
  for (const card of cards) {
    if (isWild(card, wildRank)) continue;
    const at = left.indexOf(cardRank(card));
    if (at >= 0) left.splice(at, 1);
  }
  return lowToHigh(left);
}

/** A combination's name: "三带一"; a laizi bomb by its class: "软炸弹", "硬炸弹", "癞子炸弹". */
export function comboWords(combination: Combination | undefined): string {
  const words = S().doudizhu;
  const kind = combination?.kind ?? Kind.UNSPECIFIED;
  if (kind === Kind.BOMB && combination && combination.bomb !== BombClass.UNSPECIFIED) {
    return words.bombClasses[combination.bomb] ?? words.kinds[kind] ?? "";
  }
  return words.kinds[kind] ?? "";
}

/**
 * A play in words with the ranks it stands for and, in a laizi table, what its wild cards
 * stood for: "三带一 3 3 3 4", "软炸弹 5 5 5 5（癞子当 5）". `meant` is the reading
 * (Hint.meant, Turn.meant; "" for a play without one).
 */
export function playWords(cards: readonly string[], combination: Combination | undefined, meant: string, wildRank: string): string {
  return `${comboWords(combination)} ${meantWords(cards, meant, wildRank)}`;
}

/** A play's ranks as it stands ("5 5 5 5（癞子当 5）"); its cards' own ranks without a reading. */
export function meantWords(cards: readonly string[], meant: string, wildRank: string): string {
  const ranks = meant !== "" ? rankListWords(meant) : ranksWords(cards);
  const stood = wildStandsFor(cards, meant, wildRank);
  return stood.length ? `${ranks}${S().doudizhu.wildAs(rankListWords(stood))}` : ranks;
}

/** The ranks of some cards as one key, whatever their suits: ["H5", "S5", "D7"] → "557". */
function rankKey(cards: readonly string[]): string {
  return lowToHigh(cards.map(cardRank)).join("");
}

/** What tells two readings apart: kind, main rank, length and, for a bomb, its class. */
function readingKey(combination: Combination | undefined): string {
  return combination ? `${combination.kind}/${combination.rank}/${combination.length}/${combination.bomb}` : "";
}

/**
 * The readings Hint offers for the selected cards: its plays made of the same ranks
 * (suits never make two plays differ), one per reading (plays that differ only in what
 * wild kickers stand for are one reading), in Hint's order. More than one: the player
 * must say which (PlayRequest.meant).
 */
export function readingsOf(selected: readonly string[], plays: readonly Hint[]): Hint[] {
  const key = rankKey(selected);
  const seen = new Set<string>();
  const found: Hint[] = [];
  for (const play of plays) {
    if (rankKey(play.cards) !== key) continue;
    const reading = readingKey(play.combination);
    if (seen.has(reading)) continue;
    seen.add(reading);
    found.push(play);
  }
  return found;
}

/** Whether two card lists hold the same cards. */
export function sameCards(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && [...a].sort().join(" ") === [...b].sort().join(" ");
}
