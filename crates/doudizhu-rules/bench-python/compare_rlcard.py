"""Checks the judge against RLCard's Dou Dizhu action space, combination by combination.

Every key of RLCard's card_type.json must read as the same kind and length, and the
crate's leads from a whole deck must be exactly RLCard's keys (RLCard writes the jokers
B and R; the crate X and D). Given a bench hands file too, every hand's leads and replies
must equal RLCard's playable_cards_from_hand and get_gt_cards.

    python compare_rlcard.py path/to/judge [hands.jsonl]
"""
import json
import subprocess
import sys

from types import SimpleNamespace

from rlcard.games.doudizhu.judger import DoudizhuJudger
from rlcard.games.doudizhu.utils import CARD_TYPE, get_gt_cards

KINDS = {
    "solo": "single", "pair": "pair", "trio": "triple", "trio_solo": "triple_single",
    "trio_pair": "triple_pair", "solo_chain": "straight", "pair_chain": "pair_straight",
    "trio_chain": "triple_straight", "trio_solo_chain": "airplane_single",
    "trio_pair_chain": "airplane_pair", "four_two_solo": "four_two",
    "four_two_pair": "four_two_pairs", "bomb": "bomb", "rocket": "rocket",
}
DECK = "3333444455556666777788889999TTTTJJJJQQQQKKKKAAAA2222XD"


def to_crate(cards):
    return cards.replace("B", "X").replace("R", "D")


def rlcard_text(rank_text):
    return "".join({"X": "B", "D": "R"}.get(r, r) for r in rank_text.split())


def rlcard_player(cards):
    objects = [SimpleNamespace(rank="", suit=c + "J") if c in "BR"
               else SimpleNamespace(rank=c, suit="S") for c in cards]
    return SimpleNamespace(current_hand=objects, played_cards=cards)


def compare_hands(judge, path):
    samples = [json.loads(line) for line in open(path)]
    lines = []
    for s in samples:
        lines.append(json.dumps({"hand": s["hand"]}))
        lines.append(json.dumps({"hand": s["hand"], "prev": s["prev"]}))
    out = subprocess.run([judge], input="\n".join(lines) + "\n", capture_output=True,
                         text=True, check=True).stdout.splitlines()
    differing = 0
    for i, s in enumerate(samples):
        leads = {rlcard_text(p) for p in json.loads(out[2 * i])["plays"]}
        replies = {rlcard_text(p) for p in json.loads(out[2 * i + 1])["plays"]}
        hand, prev = rlcard_text(s["hand"]), rlcard_text(s["prev"])
        if leads != set(DoudizhuJudger.playable_cards_from_hand(hand)):
            differing += 1
        if replies != set(get_gt_cards(rlcard_player(hand), rlcard_player(prev))) - {"pass"}:
            differing += 1
    print(f"bench hands: {len(samples)}, lead or reply sets differing from rlcard: {differing}")
    return differing


def main(judge, hands=None):
    table = CARD_TYPE[0]
    lines = [json.dumps({"cards": " ".join(to_crate(k))}) for k in table]
    lines.append(json.dumps({"hand": DECK}))
    out = subprocess.run([judge], input="\n".join(lines) + "\n", capture_output=True,
                         text=True, check=True).stdout.splitlines()
    mismatches = 0
    for (cards, types), line in zip(table.items(), out):
        name = types[0][0]
        if "_chain_" in name:
            base, length = name.rsplit("_chain_", 1)
            want = (KINDS[base + "_chain"], int(length))
        else:
            want = (KINDS[name], 1)
        got = json.loads(line)
        if (got.get("combination"), got.get("length")) != want:
            mismatches += 1
            print("differs:", cards, types, got)
    ours = {"".join(p.split()) for p in json.loads(out[-1])["plays"]}
    theirs = {to_crate(k) for k in table}
    print(f"rlcard combinations: {len(theirs)}, crate leads from a deck: {len(ours)}, "
          f"kind/length mismatches: {mismatches}, only crate: {len(ours - theirs)}, "
          f"only rlcard: {len(theirs - ours)}")
    differing = compare_hands(judge, hands) if hands else 0
    return 1 if mismatches or ours != theirs or differing else 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:3]))
