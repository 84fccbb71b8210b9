// @gamehub/sdk: gamehub's API for web and Cocos Creator front-ends (README.md).

export { connect, type ConnectOptions, type Gamehub, type Services, type TokenReason } from "./client.js";
export { devToken, loadSiteConfig, playerOf, requestId, type SiteConfig } from "./site.js";
export {
  asConnectError,
  describeError,
  INVALID_ARGUMENT_CODES,
  RETRY_AFTER_MS,
  retryAfterMs,
  splitCodes,
  statusName,
  type ErrorDescription,
} from "./errors.js";
export { DEFAULT_RETRY, retryDelay, retryKey, retrying, sleep, untilSettled, type RetryInfo, type RetryOptions } from "./retry.js";
export { follow, retryable, type Follower, type FollowOptions, type StreamState } from "./follow.js";
export {
  followTable,
  locateTable,
  type FeedState,
  type FollowTableOptions,
  type Game,
  type TableEventOf,
  type TableFeed,
  type TableOf,
  type TableWhy,
} from "./table.js";

// The API's messages, enums and services, generated from proto/ (also importable one
// file at a time: `@gamehub/sdk/gen/gamehub/gomoku/v1/gomoku_pb`).
export * as common from "./gen/gamehub/common/v1/common_pb.js";
export * as matchmaking from "./gen/gamehub/matchmaking/v1/matchmaking_pb.js";
export * as gomoku from "./gen/gamehub/gomoku/v1/gomoku_pb.js";
export * as doudizhu from "./gen/gamehub/doudizhu/v1/doudizhu_pb.js";
export * as ledger from "./gen/gamehub/ledger/v1/ledger_pb.js";
export * as tournament from "./gen/gamehub/tournament/v1/tournament_pb.js";

// What a front-end needs of Connect-ES and protobuf-es without depending on them itself.
export { Code, ConnectError, type CallOptions, type Client, type Interceptor } from "@connectrpc/connect";
export { create, toJson, fromJson, type MessageInitShape } from "@bufbuild/protobuf";
