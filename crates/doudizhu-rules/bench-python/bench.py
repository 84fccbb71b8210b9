"""Times DouZero's and RLCard's Dou Dizhu rule code on the crate's bench hands.

Input: JSON lines from `cargo run -q --release -p doudizhu-rules --example bench_hands`
({"hand", "prev", "play"} in rank text). For each engine and each task it times every
sample once per round and prints the median and the mean per call. (Criterion's figure
is the median over its samples of the mean time per call, each sample cycling through
the hands, so it compares with the mean here.)

- classify: the sample's "play" (DouZero: move_detector.get_move_type; RLCard: its
  card_type table lookup, which is how RLCard classifies);
- replies: every play from "hand" that beats "prev" (DouZero: GameEnv's
  get_legal_card_play_actions; RLCard: utils.get_gt_cards);
- leads: every play from "hand" (DouZero: MovesGener.gen_moves; RLCard:
  DoudizhuJudger.playable_cards_from_hand).

Run: see README.md beside this file.
"""
import json
import statistics
import sys
import time
from types import SimpleNamespace

from douzero.env import move_detector
from douzero.env.game import GameEnv
from douzero.env.move_generator import MovesGener
from rlcard.games.doudizhu.judger import DoudizhuJudger
from rlcard.games.doudizhu.utils import CARD_TYPE, get_gt_cards

DOUZERO_RANK = {"3": 3, "4": 4, "5": 5, "6": 6, "7": 7, "8": 8, "9": 9, "T": 10,
                "J": 11, "Q": 12, "K": 13, "A": 14, "2": 17, "X": 20, "D": 30}
RLCARD_RANK = {"X": "B", "D": "R"}


def douzero_cards(text):
    return [DOUZERO_RANK[r] for r in text.split()]


def rlcard_cards(text):
    # Rank text is already in RLCard's order (3..A, 2, jokers).
    return "".join(RLCARD_RANK.get(r, r) for r in text.split())


def rlcard_player(cards):
    # get_gt_cards reads player.current_hand (card objects) and greater.played_cards.
    objects = [SimpleNamespace(rank="", suit=c + "J") if c in "BR"
               else SimpleNamespace(rank=c, suit="S") for c in cards]
    return SimpleNamespace(current_hand=objects, played_cards=cards)


def douzero_replies(hand, prev):
    env = SimpleNamespace(
        info_sets={"landlord": SimpleNamespace(player_hand_cards=hand)},
        acting_player_position="landlord",
        card_play_action_seq=[prev],
    )
    return GameEnv.get_legal_card_play_actions(env)


def timed_ns(function, inputs, rounds):
    """(median, mean) nanoseconds per call over every input, `rounds` times."""
    times = []
    for _ in range(rounds):
        for args in inputs:
            start = time.perf_counter_ns()
            function(*args)
            times.append(time.perf_counter_ns() - start)
    return statistics.median(times), statistics.fmean(times)


def main(path, rounds=3):
    samples = [json.loads(line) for line in open(path)]
    dz = [(douzero_cards(s["hand"]), douzero_cards(s["prev"]), douzero_cards(s["play"]))
          for s in samples]
    rl = [(rlcard_cards(s["hand"]), rlcard_cards(s["prev"]), rlcard_cards(s["play"]))
          for s in samples]
    table = CARD_TYPE[0]
    tasks = {
        "classify": (
            timed_ns(move_detector.get_move_type, [(p,) for _, _, p in dz], rounds),
            timed_ns(table.get, [(p,) for _, _, p in rl], rounds),
        ),
        "replies": (
            timed_ns(douzero_replies, [(h, p) for h, p, _ in dz], rounds),
            timed_ns(get_gt_cards, [(rlcard_player(h), rlcard_player(p)) for h, p, _ in rl],
                      rounds),
        ),
        "leads": (
            timed_ns(lambda h: MovesGener(h).gen_moves(), [(h,) for h, _, _ in dz], rounds),
            timed_ns(DoudizhuJudger.playable_cards_from_hand, [(h,) for h, _, _ in rl], rounds),
        ),
    }
    print(f"{len(samples)} samples, {rounds} rounds, per call (median / mean):")
    for task, (douzero, rlcard) in tasks.items():
        print(f"  {task:9} douzero {douzero[0] / 1000:8.2f} / {douzero[1] / 1000:8.2f} us"
              f"   rlcard {rlcard[0] / 1000:8.2f} / {rlcard[1] / 1000:8.2f} us")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]) if len(sys.argv) > 2 else 3)
