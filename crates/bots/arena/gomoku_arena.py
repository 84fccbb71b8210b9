"""The Gomoku bot against a published engine: GomokuBench's alpha-beta search
(`gomokubench` on PyPI, MIT; its `standard` level: depth 2 over the 10 best-looking moves,
`hard`: depth 3 over 12), freestyle on 15×15 (five or more wins, black first), colors
alternating; black's first stone is on the centre (the rule crate requires it: the engine
would pick one of the nine centre points at random). The Rust bot runs as `examples/arena_bot` (op `gomoku`).

    python gomoku_arena.py --games 40 --level standard --bot ../../../target/release/examples/arena_bot
"""

import argparse
import math
import time

import numpy as np
from libs import piece
from libs.ai import get_best_move, resolve_ai_settings
from libs.board import BoardState

from arena import RustBot, wilson

SIZE = 15


def to_point(move):
    """GomokuBench's (row, column), 0-based, to the rule crate's point text (`h8`)."""
    row, column = move
    return f"{chr(ord('a') + column)}{row + 1}"


def from_point(text):
    return (int(text[1:]) - 1, ord(text[0]) - ord("a"))


def engine_move(state, settings):
    # GomokuBench maximises for black and minimises for white.
    black_to_move = state.color == piece.WHITE
    move, _ = get_best_move(
        state,
        settings["depth"],
        black_to_move,
        candidate_count=settings["candidate_count"],
        random_top_n=settings["random_top_n"],
    )
    return tuple(int(v) for v in move)


def play_game(bot, game, bot_black, settings):
    """One game; returns 'bot', 'engine' or 'draw', and the number of stones."""
    np.random.seed(game)  # the engine's opening move is drawn at random
    state = BoardState(size=SIZE)
    moves = []
    for ply in range(SIZE * SIZE):
        black_to_move = ply % 2 == 0
        if black_to_move == bot_black:
            reply = bot.ask({"op": "gomoku", "moves": moves, "seed": game * 1000 + ply})
            move = from_point(reply["move"])
        elif ply == 0:
            move = (7, 7)  # the rules put black's first stone on the centre, h8
        else:
            move = engine_move(state, settings)
        if not state.is_valid_position(move):
            raise RuntimeError(f"illegal move {move} after {moves}")
        state = state.next(move)
        moves.append(to_point(move))
        won, color = state.check_five_in_a_row()
        if won:
            bot_color = piece.BLACK if bot_black else piece.WHITE
            return ("bot" if color == bot_color else "engine"), len(moves)
    return "draw", len(moves)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=40)
    parser.add_argument("--level", default="standard", help="easy, standard or hard")
    parser.add_argument("--bot", default="target/release/examples/arena_bot")
    args = parser.parse_args()
    settings = resolve_ai_settings(args.level)
    bot = RustBot(args.bot)
    results = {"bot": 0, "engine": 0, "draw": 0}
    by_color = {True: [0, 0], False: [0, 0]}
    lengths = []
    started = time.time()
    for game in range(args.games):
        bot_black = game % 2 == 0
        winner, stones = play_game(bot, game, bot_black, settings)
        results[winner] += 1
        by_color[bot_black][0] += 1
        by_color[bot_black][1] += winner == "bot"
        lengths.append(stones)
    stats = bot.ask({"op": "stats"})
    bot.close()
    n = args.games
    lo, hi = wilson(results["bot"], n)
    print(f"Gomoku bot vs GomokuBench alpha-beta ({args.level}: depth {settings['depth']}, "
          f"{settings['candidate_count']} candidates), freestyle 15x15, {n} games, colors alternating")
    print(f"bot won {results['bot']}, lost {results['engine']}, drew {results['draw']}: "
          f"{100 * results['bot'] / n:.1f}% (95% CI {100 * lo:.1f}–{100 * hi:.1f}%)")
    print(f"as black {by_color[True][1]}/{by_color[True][0]}, as white {by_color[False][1]}/{by_color[False][0]}; "
          f"mean game {sum(lengths) / n:.0f} stones")
    print(f"bot decisions: {stats['decisions']}, mean {stats['mean_us']:.0f} µs, "
          f"p99 {stats['p99_us']:.0f} µs, max {stats['max_us']:.0f} µs; "
          f"wall time {time.time() - started:.0f} s")


if __name__ == "__main__":
    main()
