#!/usr/bin/env python3
"""gamehub's gRPC contract, checked from Python with code generated from proto/ only.

Run against a running platform (see README.md). Exits non-zero on the first broken
promise, printing what was expected and what came back.
"""
import os
import pathlib
import subprocess
import sys
import tempfile
import threading
import time
import uuid

import grpc
import jwt
from grpc_health.v1 import health_pb2, health_pb2_grpc
from grpc_reflection.v1alpha import reflection_pb2, reflection_pb2_grpc

ROOT = pathlib.Path(__file__).resolve().parents[2]
DEV_KEY = "gamehub-development-key-do-not-use-in-production"


def generate(out: pathlib.Path) -> None:
    """Generates the Python stubs from proto/ into `out`."""
    protos = sorted(str(p.relative_to(ROOT / "proto")) for p in (ROOT / "proto").rglob("*.proto"))
    subprocess.run(
        [sys.executable, "-m", "grpc_tools.protoc", f"-I{ROOT / 'proto'}",
         f"--python_out={out}", f"--grpc_python_out={out}", *protos],
        check=True,
    )
    for d in out.rglob("*"):
        if d.is_dir():
            (d / "__init__.py").touch()


GEN = pathlib.Path(tempfile.mkdtemp(prefix="gamehub-contract-"))
generate(GEN)
sys.path.insert(0, str(GEN))

from gamehub.common.v1 import common_pb2  # noqa: E402
from gamehub.doudizhu.v1 import doudizhu_pb2, doudizhu_pb2_grpc  # noqa: E402
from gamehub.gomoku.v1 import gomoku_pb2, gomoku_pb2_grpc  # noqa: E402
from gamehub.ledger.v1 import ledger_pb2, ledger_pb2_grpc  # noqa: E402
from gamehub.matchmaking.v1 import matchmaking_pb2, matchmaking_pb2_grpc  # noqa: E402

URLS = {
    "matchmaking": os.environ.get("GAMEHUB_MATCHMAKING_URL", "http://127.0.0.1:50051"),
    "gomoku": os.environ.get("GAMEHUB_GOMOKU_URL", "http://127.0.0.1:50052"),
    "doudizhu": os.environ.get("GAMEHUB_DOUDIZHU_URL", "http://127.0.0.1:50053"),
    "ledger": os.environ.get("GAMEHUB_LEDGER_URL", "http://127.0.0.1:50054"),
}
SERVICES = {
    "matchmaking": "gamehub.matchmaking.v1.MatchmakingService",
    "gomoku": "gamehub.gomoku.v1.GomokuService",
    "doudizhu": "gamehub.doudizhu.v1.DoudizhuService",
    "ledger": "gamehub.ledger.v1.LedgerService",
}
SECRET = os.environ.get("GAMEHUB_JWT_SECRET", DEV_KEY)
RUN = uuid.uuid4().hex[:6]
CHANNELS = {name: grpc.insecure_channel(url.split("://", 1)[-1]) for name, url in URLS.items()}


def token(subject: str, role: str = "player") -> str:
    now = int(time.time())
    return jwt.encode({"sub": subject, "role": role, "iat": now, "exp": now + 3600}, SECRET, algorithm="HS256")


def meta(subject: str, role: str = "player"):
    return (("authorization", "Bearer " + token(subject, role)),)


def rid() -> str:
    return uuid.uuid4().hex


def check(condition: bool, what: str) -> None:
    if not condition:
        raise AssertionError(what)
    print("ok  ", what)


def expect_status(code: grpc.StatusCode, call, what: str) -> grpc.RpcError:
    try:
        call()
    except grpc.RpcError as e:  # noqa: PERF203
        check(e.code() == code, f"{what}: {code.name} (got {e.code().name}: {e.details()})")
        check(bool(e.details()), f"{what}: the status message says what is wrong ({e.details()!r})")
        return e
    raise AssertionError(f"{what}: expected {code.name}, the call succeeded")


mm = matchmaking_pb2_grpc.MatchmakingServiceStub(CHANNELS["matchmaking"])
gomoku = gomoku_pb2_grpc.GomokuServiceStub(CHANNELS["gomoku"])
ddz = doudizhu_pb2_grpc.DoudizhuServiceStub(CHANNELS["doudizhu"])
ledger = ledger_pb2_grpc.LedgerServiceStub(CHANNELS["ledger"])
OPERATOR = meta("contract-operator", "operator")


def health_and_reflection() -> None:
    for name, channel in CHANNELS.items():
        health = health_pb2_grpc.HealthStub(channel)
        for service in ("", SERVICES[name]):
            status = health.Check(health_pb2.HealthCheckRequest(service=service), timeout=5).status
            check(status == health_pb2.HealthCheckResponse.SERVING, f"{name}: health of {service or 'the server'} is SERVING")
        stub = reflection_pb2_grpc.ServerReflectionStub(channel)
        responses = stub.ServerReflectionInfo(iter([reflection_pb2.ServerReflectionRequest(list_services="")]), timeout=5)
        names = [s.name for r in responses for s in r.list_services_response.service]
        check(SERVICES[name] in names, f"{name}: reflection lists {SERVICES[name]}")


def grant(player: str, amount: int) -> None:
    ledger.GrantSilver(ledger_pb2.GrantSilverRequest(request_id=rid(), player_id=player, amount_silver=amount,
                                                     reason="contract test"), metadata=OPERATOR, timeout=10)


def seat(player: str, room: str) -> matchmaking_pb2.Seat:
    ticket = mm.Enqueue(matchmaking_pb2.EnqueueRequest(room_id=room, request_id=rid()), metadata=meta(player), timeout=10).ticket
    deadline = time.time() + 30
    while time.time() < deadline:
        ticket = mm.GetTicket(matchmaking_pb2.GetTicketRequest(ticket_id=ticket.ticket_id), metadata=meta(player), timeout=10).ticket
        if ticket.state == matchmaking_pb2.TICKET_STATE_SEATED:
            return ticket.seat
        if ticket.state not in (matchmaking_pb2.TICKET_STATE_WAITING, matchmaking_pb2.TICKET_STATE_MATCHING):
            raise AssertionError(f"{player}'s ticket ended {ticket.state}: {ticket.message}")
        time.sleep(0.05)
    raise AssertionError(f"{player} was not seated within 30 s")


def room(room_id: str) -> matchmaking_pb2.Room:
    rooms = mm.ListRooms(matchmaking_pb2.ListRoomsRequest(), metadata=meta("contract-viewer"), timeout=10).rooms
    found = [r for r in rooms if r.room_id == room_id]
    check(bool(found), f"matchmaking lists room {room_id}")
    return found[0]


def account(player: str) -> ledger_pb2.Account:
    return ledger.GetAccount(ledger_pb2.GetAccountRequest(player_id=player), metadata=meta(player), timeout=10).account


def standing(acc: ledger_pb2.Account, game_type) -> ledger_pb2.GameStanding:
    return next(s for s in acc.standings if s.game_type == game_type)


def gomoku_game() -> None:
    players = [f"py-alice-{RUN}", f"py-bob-{RUN}"]
    r = room("gomoku-freestyle")
    for p in players:
        grant(p, max(r.stakes.min_balance_silver, 1) * 2)
    before = {p: account(p).balance_silver for p in players}
    seats = {}

    def enqueue(p):
        seats[p] = seat(p, r.room_id)

    threads = [threading.Thread(target=enqueue, args=(p,)) for p in players]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    table_id = seats[players[0]].table_id
    check(seats[players[1]].table_id == table_id, "both players sit at the same Gomoku table")
    # A front-end that restarted finds the table with one call; nobody else may ask.
    place = mm.LocatePlayer(matchmaking_pb2.LocatePlayerRequest(), metadata=meta(players[0]), timeout=10)
    check(place.seat.table_id == table_id and place.seat.room_id == r.room_id
          and place.seat.stage == matchmaking_pb2.TABLE_STAGE_IN_PROGRESS, "LocatePlayer finds the table")
    expect_status(grpc.StatusCode.PERMISSION_DENIED,
                  lambda: mm.LocatePlayer(matchmaking_pb2.LocatePlayerRequest(player_id=players[0]),
                                          metadata=meta(players[1]), timeout=10),
                  "another player's seat")
    table = gomoku.GetTable(gomoku_pb2.GetTableRequest(table_id=table_id), metadata=meta(players[0]), timeout=10).table
    black_seat = table.game.black_seat
    black = next(p.player_id for p in table.players if p.seat == black_seat)
    white = next(p.player_id for p in table.players if p.seat != black_seat)
    # Black makes five on row 8 while white plays on row 1.
    moves = [(black, "h8"), (white, "a1"), (black, "i8"), (white, "b1"), (black, "j8"), (white, "c1"),
             (black, "k8"), (white, "d1"), (black, "l8")]
    for who, point in moves:
        gomoku.PlaceStone(gomoku_pb2.PlaceStoneRequest(table_id=table_id, request_id=rid(),
                                                       point=gomoku_pb2.Point(text=point)),
                          metadata=meta(who), timeout=10)
    table = gomoku.GetTable(gomoku_pb2.GetTableRequest(table_id=table_id), metadata=meta(black), timeout=10).table
    check(table.game.phase == gomoku_pb2.PHASE_OVER, "the five ends the game")
    check(table.game.result.outcome == gomoku_pb2.OUTCOME_BLACK_WINS, "black wins")

    # Errors on a finished game and on bad input change nothing.
    expect_status(grpc.StatusCode.FAILED_PRECONDITION,
                  lambda: gomoku.PlaceStone(gomoku_pb2.PlaceStoneRequest(table_id=table_id, request_id=rid(),
                                                                          point=gomoku_pb2.Point(text="a15")),
                                            metadata=meta(white), timeout=10),
                  "a stone after the game is over")
    expect_status(grpc.StatusCode.INVALID_ARGUMENT,
                  lambda: gomoku.PlaceStone(gomoku_pb2.PlaceStoneRequest(table_id=table_id, request_id=rid(),
                                                                          point=gomoku_pb2.Point(text="z99")),
                                            metadata=meta(white), timeout=10),
                  "an off-board point")
    expect_status(grpc.StatusCode.NOT_FOUND,
                  lambda: gomoku.GetTable(gomoku_pb2.GetTableRequest(table_id="no-such-table"), metadata=meta(white), timeout=10),
                  "an unknown table")

    # The ledger settles the game: black +5 points × base, silver moves loser → winner.
    base = r.stakes.points_base
    deadline = time.time() + 30
    while time.time() < deadline and standing(account(black), common_pb2.GAME_TYPE_GOMOKU).games == 0:
        time.sleep(0.1)
    acc_black, acc_white = account(black), account(white)
    check(standing(acc_black, common_pb2.GAME_TYPE_GOMOKU).points == 5 * base, "the ledger gives black +5 points")
    check(standing(acc_white, common_pb2.GAME_TYPE_GOMOKU).points == -5 * base, "the ledger takes 5 points from white")
    won = acc_black.balance_silver - before[black]
    lost = before[white] - acc_white.balance_silver
    check(won == lost == 5 * base * r.stakes.silver_per_point, f"silver moved white → black ({won})")
    # gomoku-freestyle plays its games in pairs (docs/rules.md#games-in-pairs): leaving
    # before the second game is an escape from it, and the table says so beforehand.
    between = gomoku.GetTable(gomoku_pb2.GetTableRequest(table_id=table_id), metadata=meta(black), timeout=10).table
    check(between.paired_games and between.leaving_escapes, "leaving between the two games of a pair is an escape")
    left = gomoku.Leave(gomoku_pb2.LeaveRequest(table_id=table_id, request_id=rid()), metadata=meta(black), timeout=10)
    check(left.escaped, "Leave says it was an escape")
    check(left.table.close_reason == gomoku_pb2.CLOSE_REASON_ESCAPE, "the table closed with CLOSE_REASON_ESCAPE")
    place = mm.LocatePlayer(matchmaking_pb2.LocatePlayerRequest(), metadata=meta(white), timeout=10)
    check(not place.HasField("seat"), "no seat once the table closed")


def doudizhu_deal() -> None:
    players = [f"py-carol-{RUN}", f"py-dave-{RUN}", f"py-erin-{RUN}"]
    r = room("doudizhu-classic")
    for p in players:
        grant(p, max(r.stakes.min_balance_silver, 1) * 2)
    seats = {}

    def enqueue(p):
        seats[p] = seat(p, r.room_id)

    threads = [threading.Thread(target=enqueue, args=(p,)) for p in players]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    table_id = seats[players[0]].table_id
    check(all(s.table_id == table_id for s in seats.values()), "all three sit at the same Dou Dizhu table")
    by_seat = {s.seat: p for p, s in seats.items()}

    def view(p):
        return ddz.GetTable(doudizhu_pb2.GetTableRequest(table_id=table_id), metadata=meta(p), timeout=10).table

    # Somebody not to act bids: FAILED_PRECONDITION, nothing changes.
    t = view(players[0])
    idle = next(p for s, p in by_seat.items() if s != t.to_act)
    expect_status(grpc.StatusCode.FAILED_PRECONDITION,
                  lambda: ddz.Bid(doudizhu_pb2.BidRequest(table_id=table_id, request_id=rid(), points=1),
                                  metadata=meta(idle), timeout=10),
                  "a bid out of turn")
    for p in players:
        check(len(view(p).hand) == 17, f"{p} holds 17 cards while bidding")
    # The first bidder bids 3; the landlord leads its smallest hint; farmers pass.
    deadline = time.time() + 120
    while time.time() < deadline:
        t = view(players[0])
        if t.phase == doudizhu_pb2.PHASE_FINISHED or t.status == doudizhu_pb2.TABLE_STATUS_BETWEEN_DEALS:
            break
        if t.to_act < 0:
            time.sleep(0.05)
            continue
        actor = by_seat[t.to_act]
        md = meta(actor)
        if t.phase == doudizhu_pb2.PHASE_BIDDING:
            ddz.Bid(doudizhu_pb2.BidRequest(table_id=table_id, request_id=rid(), points=3), metadata=md, timeout=10)
        else:
            hint = ddz.Hint(doudizhu_pb2.HintRequest(table_id=table_id), metadata=md, timeout=10)
            if hint.can_pass:
                ddz.Pass(doudizhu_pb2.PassRequest(table_id=table_id, request_id=rid()), metadata=md, timeout=10)
            else:
                ddz.Play(doudizhu_pb2.PlayRequest(table_id=table_id, request_id=rid(), ranks=hint.plays[0].ranks),
                         metadata=md, timeout=10)
    t = view(players[0])
    check(t.result.outcome == doudizhu_pb2.OUTCOME_LANDLORD_WON, "the landlord who led every trick wins")
    check(len(t.result.seed) == 64, "the seed is revealed when the deal ends")
    landlord = by_seat[t.landlord]
    deadline = time.time() + 30
    while time.time() < deadline and standing(account(landlord), common_pb2.GAME_TYPE_DOUDIZHU).games == 0:
        time.sleep(0.1)
    points = {p: standing(account(p), common_pb2.GAME_TYPE_DOUDIZHU).points for p in players}
    check(points[landlord] > 0 and sum(points.values()) == 0, f"the ledger settled the deal zero-sum {points}")
    ddz.Leave(doudizhu_pb2.LeaveRequest(table_id=table_id, request_id=rid()), metadata=meta(landlord), timeout=10)


def doudizhu_laizi_deal() -> None:
    """A laizi (癞子) deal driven by Table.decision alone: the first seat asked calls, nobody
    robs, doubles or shows; the landlord plays Hint's first play with its stated reading."""
    players = [f"py-fay-{RUN}", f"py-gus-{RUN}", f"py-hal-{RUN}"]
    r = room("doudizhu-laizi-free")
    check(r.rule_set == "laizi", f"the laizi room names its rule set ({r.rule_set!r})")
    seats = {}

    def enqueue(p):
        seats[p] = seat(p, r.room_id)

    threads = [threading.Thread(target=enqueue, args=(p,)) for p in players]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    table_id = seats[players[0]].table_id
    by_seat = {s.seat: p for p, s in seats.items()}

    def view(p):
        return ddz.GetTable(doudizhu_pb2.GetTableRequest(table_id=table_id), metadata=meta(p), timeout=10).table

    t = view(players[0])
    check(t.rule_set == "laizi" and t.decision == doudizhu_pb2.DECISION_CALL, "a laizi table starts by calling")
    expect_status(grpc.StatusCode.FAILED_PRECONDITION,
                  lambda: ddz.Bid(doudizhu_pb2.BidRequest(table_id=table_id, request_id=rid(), points=1),
                                  metadata=meta(by_seat[t.to_act]), timeout=10),
                  "a bid in a laizi table")
    decisions = set()
    deadline = time.time() + 120
    while time.time() < deadline:
        t = view(players[0])
        if t.phase == doudizhu_pb2.PHASE_FINISHED or t.status == doudizhu_pb2.TABLE_STATUS_BETWEEN_DEALS:
            break
        if t.to_act < 0:
            time.sleep(0.05)
            continue
        md = meta(by_seat[t.to_act])
        decisions.add(t.decision)
        if t.decision == doudizhu_pb2.DECISION_CALL:
            ddz.Call(doudizhu_pb2.CallRequest(table_id=table_id, request_id=rid(), call=True), metadata=md, timeout=10)
        elif t.decision == doudizhu_pb2.DECISION_ROB:
            ddz.Rob(doudizhu_pb2.RobRequest(table_id=table_id, request_id=rid(), rob=False), metadata=md, timeout=10)
        elif t.decision == doudizhu_pb2.DECISION_DOUBLE:
            check(t.wild_rank != "", "the wild rank is drawn once the landlord is known")
            ddz.Double(doudizhu_pb2.DoubleRequest(table_id=table_id, request_id=rid(), double=False),
                       metadata=md, timeout=10)
        elif t.decision == doudizhu_pb2.DECISION_SHOW:
            ddz.Show(doudizhu_pb2.ShowRequest(table_id=table_id, request_id=rid(), show=False), metadata=md, timeout=10)
        else:
            hint = ddz.Hint(doudizhu_pb2.HintRequest(table_id=table_id), metadata=md, timeout=10)
            if hint.can_pass:
                ddz.Pass(doudizhu_pb2.PassRequest(table_id=table_id, request_id=rid()), metadata=md, timeout=10)
            else:
                first = hint.plays[0]
                ddz.Play(doudizhu_pb2.PlayRequest(table_id=table_id, request_id=rid(), ranks=first.ranks,
                                                  meant=first.meant), metadata=md, timeout=10)
    t = view(players[0])
    check(decisions >= {doudizhu_pb2.DECISION_CALL, doudizhu_pb2.DECISION_ROB, doudizhu_pb2.DECISION_DOUBLE,
                        doudizhu_pb2.DECISION_SHOW, doudizhu_pb2.DECISION_PLAY},
          "every decision of the rule set was asked")
    check(t.result.outcome == doudizhu_pb2.OUTCOME_LANDLORD_WON and t.result.rule_set == "laizi",
          "the laizi landlord who led every trick wins")
    check(sum(t.result.points) == 0, "a played-out laizi deal is zero-sum")
    ddz.Leave(doudizhu_pb2.LeaveRequest(table_id=table_id, request_id=rid()), metadata=meta(players[0]), timeout=10)


def bad_requests() -> None:
    expect_status(grpc.StatusCode.UNAUTHENTICATED,
                  lambda: ledger.GetAccount(ledger_pb2.GetAccountRequest(), timeout=10),
                  "a call without a token")
    expect_status(grpc.StatusCode.UNAUTHENTICATED,
                  lambda: ledger.GetAccount(ledger_pb2.GetAccountRequest(),
                                            metadata=(("authorization", "Bearer not-a-jwt"),), timeout=10),
                  "a malformed token")
    expect_status(grpc.StatusCode.PERMISSION_DENIED,
                  lambda: mm.Enqueue(matchmaking_pb2.EnqueueRequest(room_id="gomoku-freestyle", request_id=rid(),
                                                                     player_id="somebody-else"),
                                     metadata=meta(f"py-mallory-{RUN}"), timeout=10),
                  "a player enqueueing another player")
    expect_status(grpc.StatusCode.PERMISSION_DENIED,
                  lambda: ledger.GrantSilver(ledger_pb2.GrantSilverRequest(request_id=rid(), player_id="x",
                                                                            amount_silver=1, reason="r"),
                                             metadata=meta(f"py-mallory-{RUN}"), timeout=10),
                  "a player granting silver")
    # A player without silver is refused at the door, with the reason as a code.
    refused = expect_status(grpc.StatusCode.FAILED_PRECONDITION,
                            lambda: mm.Enqueue(matchmaking_pb2.EnqueueRequest(room_id="gomoku-freestyle", request_id=rid()),
                                               metadata=meta(f"py-pauper-{RUN}"), timeout=10),
                            "an enqueue below the room's minimum balance")
    check(refused.details().startswith("not_eligible: insufficient_balance: "),
          f"the refusal names its reason as a code ({refused.details()!r})")
    expect_status(grpc.StatusCode.INVALID_ARGUMENT,
                  lambda: mm.Enqueue(matchmaking_pb2.EnqueueRequest(room_id="gomoku-freestyle", request_id=""),
                                     metadata=meta(f"py-mallory-{RUN}"), timeout=10),
                  "an enqueue without a request id")
    expect_status(grpc.StatusCode.NOT_FOUND,
                  lambda: ddz.GetTable(doudizhu_pb2.GetTableRequest(table_id="ddz-000000000000000000000000"),
                                       metadata=meta(f"py-mallory-{RUN}"), timeout=10),
                  "an unknown Dou Dizhu table")


def main() -> int:
    health_and_reflection()
    bad_requests()
    gomoku_game()
    doudizhu_deal()
    doudizhu_laizi_deal()
    print("contract test passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
