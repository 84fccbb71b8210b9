"""Reference re-implementation of the crate's shuffle, deal, commitment and laizi wild rank, in plain
Python with no dependencies, so a front-end author can check a port against it.

    python3 shuffle.py [SEED_HEX [DEAL_ID]]

Without arguments it prints the README's test vector (seed bytes 0..31, deal id
"table-1/deal-1").
"""
import hashlib
import struct
import sys

RANKS = "3456789TJQKA2"
SUITS = "SHCD"


def card_text(card_id):
    if card_id == 52:
        return "BJ"
    if card_id == 53:
        return "RJ"
    return SUITS[card_id % 4] + RANKS[card_id // 4]


def chacha20_block(key, counter, nonce):
    """RFC 8439 section 2.3: one 64-byte block as 16 little-endian words."""
    def rotl(v, n):
        return ((v << n) & 0xFFFFFFFF) | (v >> (32 - n))

    def quarter(s, a, b, c, d):
        s[a] = (s[a] + s[b]) & 0xFFFFFFFF; s[d] = rotl(s[d] ^ s[a], 16)
        s[c] = (s[c] + s[d]) & 0xFFFFFFFF; s[b] = rotl(s[b] ^ s[c], 12)
        s[a] = (s[a] + s[b]) & 0xFFFFFFFF; s[d] = rotl(s[d] ^ s[a], 8)
        s[c] = (s[c] + s[d]) & 0xFFFFFFFF; s[b] = rotl(s[b] ^ s[c], 7)

    state = [0x61707865, 0x3320646E, 0x79622D32, 0x6B206574]
    state += list(struct.unpack("<8I", key))
    state += [counter & 0xFFFFFFFF]
    state += list(struct.unpack("<3I", nonce))
    working = state[:]
    for _ in range(10):
        quarter(working, 0, 4, 8, 12); quarter(working, 1, 5, 9, 13)
        quarter(working, 2, 6, 10, 14); quarter(working, 3, 7, 11, 15)
        quarter(working, 0, 5, 10, 15); quarter(working, 1, 6, 11, 12)
        quarter(working, 2, 7, 8, 13); quarter(working, 3, 4, 9, 14)
    return [(w + s) & 0xFFFFFFFF for w, s in zip(working, state)]


def words(seed):
    """The keystream as consecutive u32 words: key = seed, nonce = 0, counter from 0."""
    counter = 0
    while True:
        yield from chacha20_block(seed, counter, bytes(12))
        counter += 1


def uniform_below(stream, bound):
    zone = 2**32 - (2**32 % bound)
    while True:
        w = next(stream)
        if w < zone:
            return w % bound


def shuffle_from(stream):
    deck = list(range(54))
    for i in range(53, 0, -1):
        j = uniform_below(stream, i + 1)
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def shuffled_deck(seed):
    return shuffle_from(words(seed))


def wild_rank(seed):
    """The laizi wild rank: the keystream right after the shuffle draws 0..13 over 3..2."""
    stream = words(seed)
    shuffle_from(stream)
    return RANKS[uniform_below(stream, 13)]


def deal(seed):
    deck = shuffled_deck(seed)
    return [deck[0:17], deck[17:34], deck[34:51]], deck[51:54]


def commitment(seed, deal_id):
    return hashlib.sha256(seed + deal_id.encode("utf-8")).hexdigest()


if __name__ == "__main__":
    seed = bytes.fromhex(sys.argv[1]) if len(sys.argv) > 1 else bytes(range(32))
    deal_id = sys.argv[2] if len(sys.argv) > 2 else "table-1/deal-1"
    print("deck:", " ".join(card_text(c) for c in shuffled_deck(seed)))
    hands, kitty = deal(seed)
    for seat, hand in enumerate(hands):
        print(f"seat {seat}:", " ".join(card_text(c) for c in sorted(hand)))
    print("kitty:", " ".join(card_text(c) for c in sorted(kitty)))
    print("commitment:", commitment(seed, deal_id))
    print("wild rank (laizi):", wild_rank(seed))
