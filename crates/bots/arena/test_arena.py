"""Tests of the arena harness: the card mapping between RLCard and the rule crate (a
mis-mapping would make every figure meaningless) and that the bot is shown only what its
seat may see.

    python -m unittest test_arena          (with ARENA_BOT pointing at the bot binary)
"""

import os
import unittest

import numpy as np
import rlcard

import arena

BOT = os.environ.get("ARENA_BOT", "../../../target/release/examples/arena_bot")


class Guarded(dict):
    """A raw observation that refuses to show the other hands."""

    def __getitem__(self, key):
        if key == "others_hand":
            raise AssertionError("the harness read another seat's cards")
        return super().__getitem__(key)

    def get(self, key, default=None):
        if key == "others_hand":
            raise AssertionError("the harness read another seat's cards")
        return super().get(key, default)


class Mapping(unittest.TestCase):
    def test_jokers_and_tens_map_both_ways(self):
        self.assertEqual(arena.to_rules("3TTAB"), "3TTAX")
        self.assertEqual(arena.to_rules("BR"), "XD")
        self.assertEqual(arena.to_rules("2R"), "2D")
        self.assertEqual(arena.to_rules("pass"), "")
        self.assertEqual(arena.to_rlcard("XD"), "BR")
        self.assertEqual(arena.to_rlcard("3 3 T 2 X"), "33T2B")
        self.assertEqual(arena.to_rlcard(""), "pass")
        # The rule crate's order (3..A 2 X D) sorts like RLCard's (3..A 2 B R).
        self.assertEqual(arena.to_rlcard("D X 2 A 3"), "3A2BR")

    def test_every_card_of_the_deck_round_trips(self):
        for card in arena.RLCARD_ORDER:
            self.assertEqual(arena.to_rlcard(arena.to_rules(card)), card)


class AgainstRLCard(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.bot = arena.RustBot(BOT)

    @classmethod
    def tearDownClass(cls):
        cls.bot.close()

    def test_legal_plays_agree_with_rlcard_in_random_games(self):
        """In 60 random games, at every turn RLCard's legal actions, mapped, are exactly
        the rule crate's legal plays (plus the pass when following)."""
        env = rlcard.make("doudizhu", config={"seed": 0})
        rng = np.random.RandomState(5)
        checked = 0
        for deal in range(60):
            env.seed(1000 + deal)
            state, seat = env.reset()
            while not env.is_over():
                raw = state["raw_obs"]
                greater = env.game.round.greater_player
                following = greater is not None and greater.player_id != seat
                prev = ""
                if following:
                    prev = next(a for _, a in reversed(raw["trace"]) if a != "pass")
                reply = self.bot.ask(
                    {"op": "legal", "hand": arena.to_rules(raw["current_hand"]),
                     "prev": arena.to_rules(prev)}
                )
                ours = {arena.to_rlcard(p) for p in reply["plays"]}
                if following:
                    ours.add("pass")
                self.assertEqual(ours, set(state["raw_legal_actions"]), raw["current_hand"])
                checked += 1
                actions = state["raw_legal_actions"]
                state, seat = env.step(actions[rng.randint(len(actions))], raw_action=True)
        self.assertGreater(checked, 1000)

    def test_the_bot_sees_only_its_own_hand_the_kitty_and_the_turns(self):
        env = rlcard.make("doudizhu", config={"seed": 0})
        env.seed(7)
        state, seat = env.reset()
        kitty = state["raw_obs"]["seen_cards"]
        landlord_dealt = env.game.players[0].initial_hand
        self.assertEqual(len(kitty), 3)
        for c in kitty:
            self.assertIn(c, landlord_dealt)
        agent = arena.BotAgent(self.bot)
        agent.kitty = kitty
        turns = 0
        while not env.is_over():
            raw = Guarded(state["raw_obs"])
            request = arena.visible_request(raw, kitty, "bot")
            self.assertEqual(
                set(request), {"op", "bot", "seat", "landlord", "hand", "kitty", "turns"}
            )
            self.assertEqual(request["seat"], seat)
            own = "".join(c.rank or c.suit for c in env.game.players[seat].current_hand)
            self.assertEqual(request["hand"], arena.to_rules(own.replace("BJ", "B").replace("RJ", "R")))
            if seat == 0:
                action = agent.act({"raw_obs": raw})
            else:
                action = state["raw_legal_actions"][-1]
            self.assertIn(action, state["raw_legal_actions"])
            state, seat = env.step(action, raw_action=True)
            turns += 1
        self.assertGreater(turns, 5)

    def test_a_deal_number_gives_the_same_cards_every_time(self):
        env = rlcard.make("doudizhu", config={"seed": 0})
        agents = [arena.RuleAgent()] * 3
        _, first = arena.play_deal(env, 42, agents)
        _, again = arena.play_deal(env, 42, agents)
        self.assertEqual(first, again)


if __name__ == "__main__":
    unittest.main()
