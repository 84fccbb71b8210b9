"""Checks the judge against RLCard's Dou Dizhu action space, combination by combination.

Every key of RLCard's card_type.json must read as the same kind and length, and the
crate's leads from a whole deck must be exactly RLCard's keys (RLCard writes the jokers
B and R; the crate X and D).

    python compare_rlcard.py path/to/judge
"""
import json
import subprocess
import sys

from rlcard.games.doudizhu.utils import CARD_TYPE

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


def main(judge):
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
    return 1 if mismatches or ours != theirs else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
