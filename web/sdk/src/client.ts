// Typed clients of the player-facing services over gRPC-Web (fetch), each call
// carrying the player's bearer token, honouring the server's retry hints and, with a
// token provider, asking it once for a fresh token when the server says UNAUTHENTICATED.

import { Code, ConnectError, createClient, type Client, type Interceptor, type Transport } from "@connectrpc/connect";
import { createAsyncIterable } from "@connectrpc/connect/protocol";
import { createGrpcWebTransport } from "@connectrpc/connect-web";
import { MatchmakingService } from "./gen/gamehub/matchmaking/v1/matchmaking_pb.js";
import { GomokuService } from "./gen/gamehub/gomoku/v1/gomoku_pb.js";
import { DoudizhuService } from "./gen/gamehub/doudizhu/v1/doudizhu_pb.js";
import { LedgerService } from "./gen/gamehub/ledger/v1/ledger_pb.js";
import { TournamentService } from "./gen/gamehub/tournament/v1/tournament_pb.js";
import { asConnectError, retryAfterMs } from "./errors.js";
import { DEFAULT_RETRY, retryDelay, retryKey, sleep, type RetryOptions } from "./retry.js";
import { playerOf } from "./site.js";

/** Where each service answers gRPC-Web (`/config.json`'s `services`). */
export interface Services {
  matchmaking: string;
  gomoku: string;
  doudizhu: string;
  ledger: string;
  /** Tournaments; absent from an older server's `/config.json`. */
  tournaments?: string;
}

/** Why a token provider is asked: the first call, or the server refused the last token. */
export type TokenReason = "initial" | "refresh";

export interface ConnectOptions {
  services: Services;
  /** The player's token (a JWT). */
  token?: string;
  /**
   * Where a token comes from (the operator's login system, a container app, `devToken`):
   * asked before the first call, and once more when a call is refused UNAUTHENTICATED
   * (that call is then made again with the new token).
   */
  tokenProvider?: (reason: TokenReason) => string | Promise<string>;
  /** Retries (`DEFAULT_RETRY`), or `false` for none. */
  retry?: Partial<RetryOptions> | false;
  /** The fetch to use (a runtime without a global fetch, a test). */
  fetch?: typeof globalThis.fetch;
  /** More interceptors, run inside the SDK's (they see every attempt). */
  interceptors?: Interceptor[];
  /** JSON instead of binary protobuf on the wire (debugging). Default false. */
  json?: boolean;
}

/** The services' clients, every method typed from `proto/`. */
export interface Gamehub {
  matchmaking: Client<typeof MatchmakingService>;
  gomoku: Client<typeof GomokuService>;
  doudizhu: Client<typeof DoudizhuService>;
  ledger: Client<typeof LedgerService>;
  /** Tournaments, when `services.tournaments` names the service (else undefined). */
  tournaments?: Client<typeof TournamentService>;
  /** The token calls carry now (asking the provider when there is none yet). */
  token(): Promise<string>;
  /** The player the token names (its `sub`), or null before a token is known. */
  player(): string | null;
  /** Replaces the token (e.g. after the player signed in again). */
  setToken(token: string): void;
}

/** Typed clients of the services; see `ConnectOptions`. */
export function connect(options: ConnectOptions): Gamehub {
  if (!options.token && !options.tokenProvider) throw new Error("connect: give a token or a tokenProvider");
  let token = options.token ?? "";
  let pending: Promise<string> | null = null;
  const ask = (reason: TokenReason): Promise<string> => {
    pending ??= Promise.resolve(options.tokenProvider!(reason)).then(
      (t) => ((token = t), (pending = null), t),
      (err: unknown) => {
        pending = null;
        throw new ConnectError(`the token provider failed: ${String(err)}`, Code.Unauthenticated, undefined, undefined, err);
      },
    );
    return pending;
  };
  const current = () => (token ? Promise.resolve(token) : options.tokenProvider ? ask("initial") : Promise.resolve(token));

  const sdk: Interceptor = (next) => async (req) => {
    const perCall = req.contextValues.get(retryKey);
    const retry: RetryOptions | null =
      options.retry === false || perCall === false ? null : { ...DEFAULT_RETRY, ...(options.retry || {}), ...(perCall || {}) };
    // A server stream's request is one message: kept to send again on a retry.
    const input: unknown[] = [];
    if (req.stream) {
      if (req.method.methodKind !== "server_streaming") return next(req);
      for await (const m of req.message) input.push(m);
    }
    const startedAt = Date.now();
    let refreshed = false;
    for (let attempt = 1; ; attempt++) {
      const used = await current();
      req.header.set("authorization", `Bearer ${used}`);
      try {
        // A stream is retried only while it opens; a stream that broke later is
        // resumed by its follower (`follow`, `followTable`) after the last event.
        return req.stream ? await next({ ...req, message: createAsyncIterable(input) } as typeof req) : await next(req);
      } catch (err) {
        const e = asConnectError(err);
        if (req.signal.aborted) throw e;
        if (e.code === Code.Unauthenticated && options.tokenProvider && !refreshed) {
          refreshed = true;
          if (token === used) await ask("refresh");
          attempt -= 1;
          continue;
        }
        const wait = retry ? retryDelay(e, attempt, retry, startedAt) : null;
        if (wait === null) throw e;
        const hintMs = retryAfterMs(e);
        retry!.onRetry?.({ method: `${req.service.typeName}/${req.method.name}`, attempt, waitMs: wait, ...(hintMs === undefined ? {} : { hintMs }), error: e });
        await sleep(wait, req.signal);
      }
    }
  };

  const transport = (baseUrl: string): Transport =>
    createGrpcWebTransport({
      baseUrl,
      useBinaryFormat: !options.json,
      interceptors: [sdk, ...(options.interceptors ?? [])],
      ...(options.fetch ? { fetch: options.fetch } : {}),
    });
  return {
    matchmaking: createClient(MatchmakingService, transport(options.services.matchmaking)),
    gomoku: createClient(GomokuService, transport(options.services.gomoku)),
    doudizhu: createClient(DoudizhuService, transport(options.services.doudizhu)),
    ledger: createClient(LedgerService, transport(options.services.ledger)),
    ...(options.services.tournaments ? { tournaments: createClient(TournamentService, transport(options.services.tournaments)) } : {}),
    token: current,
    player: () => (token ? playerOf(token) : null),
    setToken: (t) => {
      token = t;
    },
  };
}
