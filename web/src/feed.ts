// One table on screen: its state from GetTable, its events from the resumable Watch.
//
// The page keeps, per table, the last event id it applied and the event log in
// sessionStorage. A reload (or a dropped stream) resumes Watch right after that id:
// the events missed meanwhile arrive in order, none twice, and when the server has
// trimmed them it sends a fresh snapshot first. After each event the page reads the
// table again (one read at a time), so phases, clocks, hands and results are always
// the server's own; the events only feed the log. The stream itself is the SDK's
// `follow` (web/sdk), which also waits out the server's retry hints.

import { follow } from "../sdk/src/index.js";

export interface FeedOptions<Table, Item> {
  tableId: string;
  /** GetTable, as this viewer sees it. */
  read: () => Promise<Table>;
  /** Watch after an event id (0: a snapshot first). */
  watch: (afterEventId: bigint, signal: AbortSignal) => AsyncIterable<Item>;
  /** The snapshot an item carries, if it is one. */
  snapshot: (item: Item) => Table | undefined;
  /** The event an item carries, if it is one: its id and a line for the log. */
  event: (item: Item) => { id: bigint; line: string | null } | undefined;
  lastEventId: (table: Table) => bigint;
  /** Called with each newer table. */
  render: (table: Table) => void;
  /** Called when the log or the connection changes. */
  status: (log: string[], connection: "live" | "reconnecting" | "stopped") => void;
}

export interface Feed<Table> {
  /** Takes a table an action returned (ignored when older than the one shown). */
  apply: (table: Table | undefined) => void;
  /** Reads the table again. */
  refresh: () => void;
  stop: () => void;
}

const LOG_LINES = 60;

interface Saved {
  after: string;
  log: string[];
}

function load(tableId: string): Saved {
  try {
    const saved = JSON.parse(sessionStorage.getItem(`gamehub.watch.${tableId}`) ?? "null") as Saved | null;
    if (saved && typeof saved.after === "string" && Array.isArray(saved.log)) return saved;
  } catch {
    // a damaged entry is as good as none
  }
  return { after: "0", log: [] };
}

export function lastEventSaved(tableId: string): bigint {
  return BigInt(load(tableId).after);
}

export function openFeed<Table, Item>(o: FeedOptions<Table, Item>): Feed<Table> {
  const saved = load(o.tableId);
  const log = saved.log;
  let applied = BigInt(saved.after);
  let shownEventId = -1n;
  let connection: "live" | "reconnecting" | "stopped" = "live";
  let reading = false;
  let readAgain = false;
  let stopped = false;

  const save = (after: bigint) =>
    sessionStorage.setItem(`gamehub.watch.${o.tableId}`, JSON.stringify({ after: String(after), log }));

  const apply = (table: Table | undefined) => {
    if (!table || stopped) return;
    const id = o.lastEventId(table);
    if (id < shownEventId) return;
    shownEventId = id;
    o.render(table);
  };

  const refresh = () => {
    if (reading) {
      readAgain = true;
      return;
    }
    reading = true;
    o.read()
      .then(apply)
      .catch(() => undefined)
      .finally(() => {
        reading = false;
        if (readAgain && !stopped) {
          readAgain = false;
          refresh();
        }
      });
  };

  refresh();
  const stream = follow<Item>({
    afterEventId: BigInt(saved.after),
    open: o.watch,
    eventId: (item) => {
      const snapshot = o.snapshot(item);
      return snapshot ? o.lastEventId(snapshot) : (o.event(item)?.id ?? null);
    },
    onItem: (item) => {
      const snapshot = o.snapshot(item);
      if (snapshot) {
        apply(snapshot);
        applied = o.lastEventId(snapshot);
        save(applied);
        return;
      }
      const event = o.event(item);
      if (!event || event.id <= applied) return; // never an event twice
      applied = event.id;
      if (event.line) {
        log.push(event.line);
        log.splice(0, Math.max(0, log.length - LOG_LINES));
      }
      save(event.id);
      o.status(log, connection);
      refresh();
    },
    onState: (state) => {
      connection = state;
      o.status(log, state);
      if (state === "live") refresh();
    },
  });
  o.status(log, connection);
  return {
    apply,
    refresh,
    stop: () => {
      stopped = true;
      stream.stop();
    },
  };
}
