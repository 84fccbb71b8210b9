// Every call typed, and a real game: two SDK clients enqueue, are seated and play a
// Gomoku game through PlaceStone to a result; refusals explained by their stable codes.

import assert from "node:assert/strict";
import { test } from "node:test";
import { Code, create, describeError, requestId, type Gamehub, type MessageInitShape } from "../src/index.js";
import { GameType } from "../src/gen/gamehub/common/v1/common_pb.js";
import {
  Color,
  Outcome,
  PlaceStoneRequestSchema,
  TableStatus,
  type PlaceStoneResponse,
  type Table,
} from "../src/gen/gamehub/gomoku/v1/gomoku_pb.js";
import { BLACK_FIVE, place, player, seatPair, WHITE_MOVES } from "./helpers.js";

// Compile-time: the calls are typed from proto/. `npm test` compiles this file with tsc
// first, so each @ts-expect-error below fails the run if the SDK stopped refusing it.
export function typedCalls(client: Gamehub): Promise<unknown>[] {
  const stone: MessageInitShape<typeof PlaceStoneRequestSchema> = { tableId: "t", requestId: requestId(), point: { text: "h8" } };
  const answered: Promise<PlaceStoneResponse> = client.gomoku.placeStone(stone);
  return [
    answered,
    // @ts-expect-error a table id is a string
    client.gomoku.placeStone({ tableId: 7 }),
    // @ts-expect-error PlaceStone has no `cards`
    client.gomoku.placeStone({ tableId: "t", cards: [] }),
    // @ts-expect-error Dou Dizhu bids take a number
    client.doudizhu.bid({ tableId: "t", requestId: "r", bid: "three" }),
    // @ts-expect-error the ledger has no PlaceStone
    client.ledger.placeStone({}),
    // @ts-expect-error int64 amounts are bigint
    client.ledger.grantSilver({ requestId: "r", playerId: "p", amountSilver: 5, reason: "x" }),
  ];
}

async function refusal(call: Promise<unknown>) {
  return call.then(
    () => assert.fail("the call was accepted"),
    (err: unknown) => describeError(err),
  );
}

test("two SDK clients enqueue, are seated and play a Gomoku game through PlaceStone to a result", async () => {
  const [a, b] = await Promise.all([player("game-a"), player("game-b")]);
  const [black, white, tableId] = await seatPair(a, b);
  const where = await black.matchmaking.locatePlayer({});
  assert.equal(where.seat?.tableId, tableId, "LocatePlayer names the table");
  assert.equal(where.seat?.gameType, GameType.GOMOKU);

  let table: Table | undefined;
  for (let i = 0; i < BLACK_FIVE.length; i++) {
    table = await place(black, tableId, BLACK_FIVE[i]!);
    if (i < WHITE_MOVES.length) table = await place(white, tableId, WHITE_MOVES[i]!);
  }
  assert.ok(table);
  assert.equal(table.status, TableStatus.BETWEEN_GAMES, "the game is over");
  const result = table.game?.result;
  assert.ok(result, "the table says the result");
  assert.equal(result.outcome, Outcome.BLACK_WINS);
  const blackSeat = table.players.find((p) => p.color === Color.BLACK)!.seat;
  assert.equal(result.winnerSeat, blackSeat, "black won");
  assert.deepEqual(
    result.winningLine.map((p) => p.text).sort(),
    [...BLACK_FIVE].sort(),
    "the winning line is black's five",
  );
  const seen = (await white.gomoku.getTable({ tableId })).table!;
  assert.equal(seen.game?.result?.winnerSeat, blackSeat, "white reads the same result");
  assert.equal(seen.game?.stones.length, 9);
});

test("refusals explained by code: not your turn, an occupied point, a refused field, an unknown table", async () => {
  const [a, b] = await Promise.all([player("err-a"), player("err-b")]);
  const [black, white, tableId] = await seatPair(a, b);
  const outOfTurn = await refusal(white.gomoku.placeStone({ tableId, requestId: requestId(), point: { text: "a1" } }));
  assert.equal(outOfTurn.grpcCode, Code.FailedPrecondition);
  assert.equal(outOfTurn.code, "not_your_turn");
  assert.equal(outOfTurn.status, "failed_precondition");
  assert.doesNotMatch(outOfTurn.message, /^not_your_turn/, "the sentence without its code");
  assert.match(outOfTurn.raw, /^not_your_turn: /);
  assert.equal(outOfTurn.field, undefined);

  await place(black, tableId, "h8");
  const occupied = await refusal(white.gomoku.placeStone({ tableId, requestId: requestId(), point: { text: "h8" } }));
  assert.equal(occupied.code, "occupied");
  assert.match(occupied.message, /h8/);

  const offBoard = await refusal(white.gomoku.placeStone({ tableId, requestId: requestId(), point: { text: "z99" } }));
  assert.equal(offBoard.grpcCode, Code.InvalidArgument);
  assert.equal(offBoard.field, "point", "the refused field");
  assert.equal(offBoard.code, "invalid_argument", "no stable code: the status");
  assert.ok(offBoard.message.length > 0 && !offBoard.message.startsWith("point:"), offBoard.message);

  const required = await refusal(white.gomoku.placeStone(create(PlaceStoneRequestSchema, { requestId: requestId(), point: { text: "a1" } })));
  assert.equal(required.field, "table_id");
  assert.match(required.message, /^table id /, "the field in words where the sentence needs it");

  const unknown = await refusal(white.gomoku.getTable({ tableId: "no-such-table" }));
  assert.equal(unknown.grpcCode, Code.NotFound);
  assert.equal(unknown.code, "not_found");

  // Nothing of the refusals changed the table: white plays on.
  const table = await place(white, tableId, "a1");
  assert.equal(table.game?.stones.length, 2);
});
