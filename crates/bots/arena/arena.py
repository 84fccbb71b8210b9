"""The Dou Dizhu arena: the gamehub bot against RLCard's rule agent (`doudizhu-rule-v1`)
and against random play, on duplicate deals in RLCard's environment.

RLCard has no bidding: seat 0 is the landlord of every deal, seat 1 plays after it (the
first farmer), seat 2 before it (the second farmer). Every deal is played once per match
with the same cards (the environment seeded by the deal number), so the bot and the rule
agent are compared seat for seat on the very same hands ("duplicate"):

    bot landlord    vs rule farmers     rule landlord vs bot farmers
    rule landlord   vs rule farmers     (the rule agent in both roles: the baseline)

The Rust bot runs as a child process (`examples/arena_bot.rs`, JSON lines). For its
seat the harness sends only what that seat may see: its own hand, the kitty (shown to
everyone when the landlord takes it), and the turns so far. Never another hand.

    python arena.py --deals 5000 --bot ../../../target/release/examples/arena_bot
"""

import argparse
import json
import math
import subprocess
import sys
import time

import numpy as np
import rlcard
from rlcard.models.doudizhu_rule_models import DouDizhuRuleAgentV1

# RLCard writes ranks `3..9 T J Q K A 2 B R` (B the black, small joker; R the red, big
# one); the rule crate writes the jokers X (small) and D (big). Both put ranks in the
# same order, lowest first.
RLCARD_ORDER = "3456789TJQKA2BR"
TO_RULES = {"B": "X", "R": "D"}
TO_RLCARD = {"X": "B", "D": "R"}


def to_rules(cards):
    """RLCard cards (`'33BR'`, `'pass'`) to rule-crate rank text (`'33XD'`, `''`)."""
    if cards == "pass":
        return ""
    return "".join(TO_RULES.get(c, c) for c in cards)


def to_rlcard(ranks):
    """Rule-crate rank text to RLCard's action string, sorted as RLCard sorts."""
    if ranks == "":
        return "pass"
    cards = [TO_RLCARD.get(c, c) for c in ranks if not c.isspace()]
    return "".join(sorted(cards, key=RLCARD_ORDER.index))


class RustBot:
    """The gamehub bot process; `name` picks the strategy (`bot` or `baseline`)."""

    def __init__(self, path, name="bot"):
        self.name = name
        self.proc = subprocess.Popen(
            [path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1
        )

    def ask(self, request):
        self.proc.stdin.write(json.dumps(request) + "\n")
        self.proc.stdin.flush()
        reply = json.loads(self.proc.stdout.readline())
        if "error" in reply:
            raise RuntimeError(f"bot refused {request}: {reply['error']}")
        return reply

    def close(self):
        self.proc.stdin.close()
        self.proc.wait()


def visible_request(raw, kitty, name):
    """The request for the seat to act: only what that seat may see. `raw` is RLCard's
    raw observation, which also holds the other hands (`others_hand`): never read here."""
    return {
        "op": "play",
        "bot": name,
        "seat": raw["self"],
        "landlord": raw["landlord"],
        "hand": to_rules(raw["current_hand"]),
        "kitty": to_rules(kitty),
        "turns": [[seat, to_rules(cards)] for seat, cards in raw["trace"]],
    }


class BotAgent:
    def __init__(self, bot):
        self.bot = bot
        self.kitty = ""

    def act(self, state):
        raw = state["raw_obs"]
        reply = self.bot.ask(visible_request(raw, self.kitty, self.bot.name))
        return to_rlcard(reply["play"])


class RuleAgent:
    def __init__(self):
        self.agent = DouDizhuRuleAgentV1()

    def act(self, state):
        return self.agent.step(state)


class RandomAgent:
    def __init__(self, rng):
        self.rng = rng

    def act(self, state):
        actions = state["raw_legal_actions"]
        return actions[self.rng.randint(len(actions))]


def play_deal(env, deal, agents):
    """Plays deal number `deal` (the environment seeded with it) with `agents` by seat;
    returns whether the landlord (seat 0) won, and the deal's hands for the log."""
    env.seed(deal)
    np.random.seed(deal)  # the rule agent's rare random choices
    state, seat = env.reset()
    kitty = state["raw_obs"]["seen_cards"]  # the three kitty cards, before any play
    hands = [p.initial_hand for p in env.game.players]
    for a in agents:
        if isinstance(a, BotAgent):
            a.kitty = kitty
    while not env.is_over():
        action = agents[seat].act(state)
        legal = state["raw_legal_actions"]
        if action not in legal:
            raise RuntimeError(f"seat {seat} chose {action!r}, not among {legal}")
        state, seat = env.step(action, raw_action=True)
    payoffs = env.get_payoffs()
    return bool(payoffs[0] == 1), hands


def wilson(wins, n, z=1.96):
    """The 95% Wilson score interval of a proportion."""
    if n == 0:
        return (0.0, 0.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (centre - half, centre + half)


def paired(diffs, z=1.96):
    """Mean of paired differences with its 95% normal interval."""
    n = len(diffs)
    mean = sum(diffs) / n
    var = sum((d - mean) ** 2 for d in diffs) / max(n - 1, 1)
    half = z * math.sqrt(var / n)
    return mean, mean - half, mean + half


def pct(x):
    return f"{100 * x:.1f}%"


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--deals", type=int, default=5000)
    parser.add_argument("--first-deal", type=int, default=1, help="deal numbers start here")
    parser.add_argument("--bot", default="target/release/examples/arena_bot")
    parser.add_argument("--strategy", default="bot", help="bot (current) or baseline (previous)")
    parser.add_argument("--no-random", action="store_true", help="skip the random sanity matches")
    parser.add_argument("--log", help="write every deal's hands and results here (JSON lines)")
    args = parser.parse_args()

    bot = RustBot(args.bot, args.strategy)
    env = rlcard.make("doudizhu", config={"seed": 0})
    rng = np.random.RandomState(20261130)
    b, r = BotAgent(bot), RuleAgent()
    matches = {
        "bot landlord vs rule farmers": [b, r, r],
        "rule landlord vs bot farmers": [r, b, b],
        "rule landlord vs rule farmers": [r, r, r],
    }
    if not args.no_random:
        rand = RandomAgent(rng)
        matches["bot landlord vs random farmers"] = [b, rand, rand]
        matches["random landlord vs bot farmers"] = [rand, b, b]
    wins = {name: [] for name in matches}
    log = open(args.log, "w") if args.log else None
    started = time.time()
    for i in range(args.deals):
        deal = args.first_deal + i
        row = {"deal": deal}
        for name, agents in matches.items():
            won, hands = play_deal(env, deal, agents)
            wins[name].append(won)
            row[name] = won
        row["hands"] = hands
        if log:
            log.write(json.dumps(row) + "\n")
        if (i + 1) % 500 == 0:
            print(f"  {i + 1} deals, {time.time() - started:.0f} s", file=sys.stderr)
    stats = bot.ask({"op": "stats"})
    bot.close()

    n = args.deals
    print(f"RLCard {rlcard.__version__} Dou Dizhu, {n} duplicate deals "
          f"(deal numbers {args.first_deal}..{args.first_deal + n - 1}), strategy {args.strategy!r}")
    print(f"{'match':<34} {'landlord wins':>14} {'95% CI':>17} {'farmer wins':>12}")
    for name, results in wins.items():
        k = sum(results)
        lo, hi = wilson(k, n)
        print(f"{name:<34} {pct(k / n):>14} {pct(lo) + '–' + pct(hi):>17} {pct(1 - k / n):>12}")
    rule = wins["rule landlord vs rule farmers"]
    as_landlord = [int(x) - int(y) for x, y in zip(wins["bot landlord vs rule farmers"], rule)]
    as_farmers = [int(y) - int(x) for x, y in zip(wins["rule landlord vs bot farmers"], rule)]
    for label, diffs in [("as landlord", as_landlord), ("as farmers", as_farmers)]:
        mean, lo, hi = paired(diffs)
        print(f"bot minus rule agent in the same seats, {label}: "
              f"{100 * mean:+.1f} points (95% CI {100 * lo:+.1f} to {100 * hi:+.1f})")
    print(f"bot decisions: {stats['decisions']}, mean {stats['mean_us']:.0f} µs, "
          f"p50 {stats['p50_us']:.0f} µs, p99 {stats['p99_us']:.0f} µs, p99.9 {stats['p999_us']:.0f} µs, "
          f"max {stats['max_us']:.0f} µs (inside the bot process, release build)")
    print(f"wall time {time.time() - started:.0f} s")


if __name__ == "__main__":
    main()
