-- Tournament money (docs/rules.md#tournaments): entry fees held in a pool per
-- tournament, refunds out of it, and prizes paying it out (HoldEntryFee, RefundEntryFee,
-- PayPrizes, called by the tournament service only).
--
-- Each tournament's pool is an account of the new kind 'tournament', named
-- '#tournament:<tournament_id>' (a system account: its id starts with '#', which a
-- player id cannot hold). Only these three calls move silver in and out of it, so every
-- silver in a pool came from an entry fee and leaves as a refund or a prize; like a
-- player's, a pool's balance never goes below zero (0001's `balances_never_negative`
-- holds for every kind but issuance). Each call is one transfer of a new kind
-- ('entry_fee', 'refund', 'prizes'), balanced by its entries (0001's statement trigger),
-- with a history row per player, and is idempotent by request id (`tournament_requests`).
--
-- Safe while the previous version still runs (replicas roll): it only adds. The two
-- CHECKs replaced below allow a superset of what they allowed (the previous version
-- writes only the kinds it knows); a new constraint names pools. Each ALTER holds its
-- table exclusively for a moment only: the constraints are added NOT VALID, so existing
-- rows (every transfer ever made) are not scanned under that lock, while every row
-- written from now on is checked. The rows there are satisfy them already: the replaced
-- CHECKs held for them and allow more, and no account is a pool yet nor has an id
-- starting with '#tournament:' (players' ids hold no '#'; the others are '#house' and
-- '#issuance'). A later migration may VALIDATE them (that takes no lock blocking writes).

-- Accounts: pools are a kind of their own, named by their tournament.
ALTER TABLE accounts
    DROP CONSTRAINT accounts_kind_check,
    ADD CONSTRAINT accounts_kind_check
        CHECK (kind IN ('player', 'house', 'issuance', 'tournament')) NOT VALID,
    ADD CONSTRAINT tournament_accounts_named_by_tournament
        CHECK ((kind = 'tournament') = (left(account_id, 12) = '#tournament:')) NOT VALID;

-- Transfers: an entry fee (player → pool), a refund (pool → player), prizes (pool → each
-- winner, one transfer). They name no game and no grant (0001's two CHECKs tying
-- 'settlement' to game_id and 'grant' to grant_request_id hold with both NULL); their
-- request is the `tournament_requests` row naming the transfer.
ALTER TABLE transfers
    DROP CONSTRAINT transfers_kind_check,
    ADD CONSTRAINT transfers_kind_check
        CHECK (kind IN ('grant', 'settlement', 'entry_fee', 'refund', 'prizes')) NOT VALID;

-- One row per tournament call that was done, by its request id (the idempotency key; a
-- retry gets `response` back, a different payload under the id is refused). Written in
-- the call's transaction, under the pool's lock.
CREATE TABLE tournament_requests (
    request_id     text COLLATE "C" PRIMARY KEY,
    -- The tournament (its pool is '#tournament:' || tournament_id).
    tournament_id  text COLLATE "C" NOT NULL CHECK (tournament_id <> ''),
    -- The same words as the transfer's kind.
    kind           text NOT NULL CHECK (kind IN ('entry_fee', 'refund', 'prizes')),
    -- Who paid the fee or got the refund; NULL for prizes (the entries say who won what).
    -- What a player may get back is its fees minus its refunds in this tournament, summed
    -- from these rows.
    player_id      text COLLATE "C" REFERENCES players (player_id),
    -- The fee or refund; for prizes, the sum paid (the pool), 0 for an empty pool.
    amount_silver  bigint NOT NULL CHECK (amount_silver >= 0),
    -- The transfer; NULL only for the prizes of an empty pool (nothing moved).
    transfer_id    uuid UNIQUE REFERENCES transfers (transfer_id),
    -- SHA-256 of the canonical request (Rust's `domain::tournament`): a retry must carry
    -- the same payload.
    request_sha256 bytea NOT NULL CHECK (length(request_sha256) = 32),
    -- The encoded gamehub.ledger.v1 response (HoldEntryFeeResponse, RefundEntryFeeResponse
    -- or PayPrizesResponse), returned again on a retry.
    response       bytea NOT NULL,
    created_at     timestamptz NOT NULL DEFAULT now(),
    CHECK ((kind = 'prizes') = (player_id IS NULL)),
    CHECK (kind = 'prizes' OR (amount_silver > 0 AND transfer_id IS NOT NULL)),
    CHECK ((transfer_id IS NULL) = (amount_silver = 0))
);
CREATE INDEX tournament_requests_by_player ON tournament_requests (tournament_id, player_id)
    WHERE player_id IS NOT NULL;

-- What is written stays written (0001's `ledger_immutable`, GH002).
CREATE TRIGGER tournament_requests_immutable BEFORE UPDATE OR DELETE ON tournament_requests
    FOR EACH ROW EXECUTE FUNCTION ledger_immutable();
