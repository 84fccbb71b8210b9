-- The ledger's schema: double-entry silver, player standings, games and history, and
-- the functions that settle a game.
--
-- Rules live in Rust (crate gamehub-ledger, module `domain`); this schema stores their
-- results and backs the money rules up with constraints and triggers:
--   * every transfer's entries sum to zero (statement trigger on `entries`);
--   * player and house balances never go below zero, the issuance account never above;
--   * transfers, entries, history, grants and games are immutable once written.
-- The SQL interprets no rule and no code: every value it writes (a new player's rating,
-- the counts a game adds, balances, caps) is computed in Rust and passed in. Codes stored
-- here (game types, roles, outcomes, history kinds) are the API's (proto) codes.
-- Ids are compared byte-wise (COLLATE "C") so that SQL's ORDER BY and Rust's sort agree:
-- rows are always locked in that one order.
--
-- This is the first release's schema, squashed from the development history. After a
-- release a migration is never edited: a change is a new migration, and a function
-- changes by CREATE OR REPLACE there (see the ledger's README).

-- Accounts. Players' accounts are named by the player id; the two system accounts start
-- with '#', which a player id cannot contain.
--   #issuance: every grant is drawn from it, so its balance is minus the silver granted;
--   #house:    receives penalties (an escaper's loss has no counterparty).
CREATE TABLE accounts (
    account_id     text COLLATE "C" PRIMARY KEY,
    kind           text NOT NULL CHECK (kind IN ('player', 'house', 'issuance')),
    balance_silver bigint NOT NULL DEFAULT 0,
    created_at     timestamptz NOT NULL DEFAULT now(),
    CONSTRAINT balances_never_negative CHECK (kind = 'issuance' OR balance_silver >= 0),
    CONSTRAINT issuance_never_positive CHECK (kind <> 'issuance' OR balance_silver <= 0),
    CONSTRAINT system_accounts_start_with_hash CHECK ((kind = 'player') = (left(account_id, 1) <> '#'))
);
INSERT INTO accounts (account_id, kind) VALUES ('#house', 'house'), ('#issuance', 'issuance');

-- A player's standing outside the per-game-type points: rating, professional flag and
-- the daily cap counters. Writers lock the player's `accounts` row first. The rating has
-- no default: a new player's is the Rust constant `NEW_PLAYER_RATING`, passed in.
CREATE TABLE players (
    player_id         text COLLATE "C" PRIMARY KEY REFERENCES accounts (account_id),
    gomoku_rating     bigint NOT NULL,
    rated_games       bigint NOT NULL DEFAULT 0 CHECK (rated_games >= 0),
    professional_dan  smallint NOT NULL DEFAULT 0 CHECK (professional_dan BETWEEN 0 AND 9),
    -- The day (in the configured time zone) the two counters below belong to; counters of
    -- an earlier day read as zero.
    cap_day           date,
    won_today_silver  bigint NOT NULL DEFAULT 0 CHECK (won_today_silver >= 0),
    lost_today_silver bigint NOT NULL DEFAULT 0 CHECK (lost_today_silver >= 0),
    created_at        timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX players_rating_board ON players (gomoku_rating DESC, player_id) WHERE rated_games > 0;

-- Points (积分) and win/loss counts per player and game type.
CREATE TABLE standings (
    player_id text COLLATE "C" NOT NULL REFERENCES players (player_id),
    game_type smallint NOT NULL,
    points    bigint NOT NULL DEFAULT 0,
    wins      bigint NOT NULL DEFAULT 0 CHECK (wins >= 0),
    losses    bigint NOT NULL DEFAULT 0 CHECK (losses >= 0),
    draws     bigint NOT NULL DEFAULT 0 CHECK (draws >= 0),
    escapes   bigint NOT NULL DEFAULT 0 CHECK (escapes >= 0),
    games     bigint NOT NULL DEFAULT 0 CHECK (games >= 0),
    PRIMARY KEY (player_id, game_type)
);
CREATE INDEX standings_points_board ON standings (game_type, points DESC, player_id) WHERE games > 0;

-- Settled games, one row per game id (the idempotency key of SettleGame).
CREATE TABLE games (
    game_id             text COLLATE "C" PRIMARY KEY,
    game_seq            bigserial NOT NULL UNIQUE,
    game_type           smallint NOT NULL,
    room_id             text NOT NULL,
    table_id            text NOT NULL,
    reason              text NOT NULL,
    points_base         bigint NOT NULL,
    silver_per_point    bigint NOT NULL CHECK (silver_per_point >= 0),
    rated               boolean NOT NULL,
    started_at_unix_ms  bigint NOT NULL,
    ended_at_unix_ms    bigint NOT NULL,
    -- The day whose daily caps the game counted against.
    cap_day             date NOT NULL,
    -- Silver the house received (penalties).
    house_silver        bigint NOT NULL CHECK (house_silver >= 0),
    -- SHA-256 of the canonical request: a retry must carry the same payload.
    request_sha256      bytea NOT NULL CHECK (length(request_sha256) = 32),
    -- The encoded gamehub.ledger.v1.SettleGameResponse, returned again on a retry.
    response            bytea NOT NULL,
    settled_at          timestamptz NOT NULL DEFAULT now()
);

-- Records are kept apart: they are large and read one at a time. Written by the same
-- statement as their game row, so no foreign key is checked per row.
CREATE TABLE game_records (
    game_id text COLLATE "C" PRIMARY KEY,
    format  text NOT NULL,
    content text NOT NULL
);

-- Each player's part in a settled game, in seat order (the order of the request).
-- Written with the game row, under the players' locks: no foreign keys on the hot path.
CREATE TABLE game_players (
    game_id          text COLLATE "C" NOT NULL,
    player_id        text COLLATE "C" NOT NULL,
    game_seq         bigint NOT NULL,
    seat             smallint NOT NULL,
    role             smallint NOT NULL,
    outcome          smallint NOT NULL,
    points           bigint NOT NULL,
    offered_draw     boolean NOT NULL,
    silver_requested bigint NOT NULL,
    silver_delta     bigint NOT NULL,
    PRIMARY KEY (game_id, player_id)
);
CREATE INDEX game_players_by_player ON game_players (player_id, game_seq DESC);

-- Double entry: a transfer is one balanced movement of silver (a grant, or a game's
-- settlement); its entries say how much each account gained (+) or gave (-). Money keeps
-- its foreign keys.
CREATE TABLE transfers (
    transfer_id      uuid PRIMARY KEY,
    kind             text NOT NULL CHECK (kind IN ('grant', 'settlement')),
    game_id          text COLLATE "C" UNIQUE REFERENCES games (game_id),
    grant_request_id text COLLATE "C" UNIQUE,
    cap_day          date NOT NULL,
    created_at       timestamptz NOT NULL DEFAULT now(),
    CHECK ((kind = 'settlement') = (game_id IS NOT NULL)),
    CHECK ((kind = 'grant') = (grant_request_id IS NOT NULL))
);

CREATE TABLE entries (
    entry_id             bigserial PRIMARY KEY,
    transfer_id          uuid NOT NULL REFERENCES transfers (transfer_id),
    account_id           text COLLATE "C" NOT NULL REFERENCES accounts (account_id),
    amount_silver        bigint NOT NULL CHECK (amount_silver <> 0),
    balance_after_silver bigint NOT NULL,
    UNIQUE (transfer_id, account_id)
);
CREATE INDEX entries_by_account ON entries (account_id, entry_id);

-- Grants: silver entering the system, by an operator, idempotent on the request id.
CREATE TABLE grants (
    request_id           text COLLATE "C" PRIMARY KEY,
    player_id            text COLLATE "C" NOT NULL REFERENCES players (player_id),
    amount_silver        bigint NOT NULL CHECK (amount_silver > 0),
    reason               text NOT NULL,
    granted_by           text NOT NULL,
    transfer_id          uuid NOT NULL UNIQUE REFERENCES transfers (transfer_id),
    balance_after_silver bigint NOT NULL,
    request_sha256       bytea NOT NULL CHECK (length(request_sha256) = 32),
    created_at           timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE transfers ADD FOREIGN KEY (grant_request_id) REFERENCES grants (request_id)
    DEFERRABLE INITIALLY DEFERRED;

-- Every change to a player's silver, points, title or rating, with its cause (kind is
-- the API's HistoryKind code). Written in the same transaction as the rows it names,
-- under the player's lock: no foreign keys on the hot path.
CREATE TABLE history (
    history_id   bigserial PRIMARY KEY,
    player_id    text COLLATE "C" NOT NULL,
    kind         smallint NOT NULL,
    game_type    smallint,
    game_id      text COLLATE "C",
    before_value bigint NOT NULL,
    after_value  bigint NOT NULL,
    reason       text NOT NULL,
    at           timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX history_by_player ON history (player_id, history_id DESC);
CREATE INDEX history_by_player_kind ON history (player_id, kind, history_id DESC);

-- Operator actions other than grants (grants keep their own audit columns).
CREATE TABLE audit_log (
    audit_id  bigserial PRIMARY KEY,
    actor     text NOT NULL,
    action    text NOT NULL,
    player_id text COLLATE "C" NOT NULL,
    detail    jsonb NOT NULL,
    at        timestamptz NOT NULL DEFAULT now()
);

-- Backstop: every transfer balances. A transfer's entries are written by one statement,
-- so a statement trigger sees them all.
CREATE FUNCTION ledger_entries_balance() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    unbalanced uuid;
BEGIN
    SELECT n.transfer_id INTO unbalanced
    FROM new_entries n
    GROUP BY n.transfer_id
    HAVING sum(n.amount_silver) <> 0
    LIMIT 1;
    IF FOUND THEN
        RAISE EXCEPTION 'transfer % does not balance', unbalanced USING ERRCODE = 'GH001';
    END IF;
    RETURN NULL;
END $$;
CREATE TRIGGER entries_balance AFTER INSERT ON entries
    REFERENCING NEW TABLE AS new_entries FOR EACH STATEMENT EXECUTE FUNCTION ledger_entries_balance();

-- Backstop: what is written stays written.
CREATE FUNCTION ledger_immutable() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '% rows are immutable', TG_TABLE_NAME USING ERRCODE = 'GH002';
END $$;
CREATE TRIGGER transfers_immutable BEFORE UPDATE OR DELETE ON transfers
    FOR EACH ROW EXECUTE FUNCTION ledger_immutable();
CREATE TRIGGER entries_immutable BEFORE UPDATE OR DELETE ON entries
    FOR EACH ROW EXECUTE FUNCTION ledger_immutable();
CREATE TRIGGER history_immutable BEFORE UPDATE OR DELETE ON history
    FOR EACH ROW EXECUTE FUNCTION ledger_immutable();
CREATE TRIGGER grants_immutable BEFORE UPDATE OR DELETE ON grants
    FOR EACH ROW EXECUTE FUNCTION ledger_immutable();
CREATE TRIGGER games_immutable BEFORE UPDATE OR DELETE ON games
    FOR EACH ROW EXECUTE FUNCTION ledger_immutable();
CREATE TRIGGER game_players_immutable BEFORE UPDATE OR DELETE ON game_players
    FOR EACH ROW EXECUTE FUNCTION ledger_immutable();
CREATE TRIGGER game_records_immutable BEFORE UPDATE OR DELETE ON game_records
    FOR EACH ROW EXECUTE FUNCTION ledger_immutable();

-- The settlement functions below take arrays of 2–3 seats, for which PostgreSQL guesses
-- 10 elements: generic plans would look costlier than custom ones and every call would
-- re-plan every statement, and a generic plan made while a table was small would keep
-- scanning it as it grew. So every table access carries an indexable `= ANY (ids)`
-- predicate on the seats' ids, and the functions run with generic plans and without
-- sequential scans: one plan per statement and session, always by primary key.

-- Gives players that have none their account, player and standing rows, in id order
-- (two settlements creating the same players queue on the first one instead of
-- deadlocking). Existing rows are neither changed nor locked. A new player's rating is
-- p_new_player_rating (the Rust constant, the only definition).
CREATE FUNCTION ledger_ensure_players(
    p_player_ids text[],
    p_game_type smallint,
    p_new_player_rating bigint
) RETURNS void LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off
AS $$
DECLARE
    v_sorted text[];
BEGIN
    SELECT array_agg(id ORDER BY id) INTO v_sorted FROM unnest(p_player_ids) AS u(id);
    INSERT INTO accounts (account_id, kind)
        SELECT id, 'player' FROM unnest(v_sorted) AS u(id) ON CONFLICT DO NOTHING;
    INSERT INTO players (player_id, gomoku_rating)
        SELECT id, p_new_player_rating FROM unnest(v_sorted) AS u(id) ON CONFLICT DO NOTHING;
    INSERT INTO standings (player_id, game_type)
        SELECT id, p_game_type FROM unnest(v_sorted) AS u(id) ON CONFLICT DO NOTHING;
END $$;

-- The locked path's first step, inside its transaction: new players get their rows, the
-- players' accounts (and the house's with p_lock_house) are locked in account-id order,
-- and the players are read. When the game was settled already (before, or by a
-- duplicate that held these locks), returns one row with the stored request hash and
-- response instead.
CREATE FUNCTION ledger_lock_for_settlement(
    p_game_id text,
    p_player_ids text[],
    p_game_type smallint,
    p_lock_house boolean,
    p_new_player_rating bigint
) RETURNS TABLE (
    existing_sha256   bytea,
    existing_response bytea,
    player_id         text,
    balance_silver    bigint,
    cap_day           date,
    won_today_silver  bigint,
    lost_today_silver bigint,
    points            bigint,
    gomoku_rating     bigint,
    rated_games       bigint,
    professional_dan  smallint
) LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off
AS $$
DECLARE
    v_sha256   bytea;
    v_response bytea;
    v_locked   integer;
BEGIN
    PERFORM ledger_ensure_players(p_player_ids, p_game_type, p_new_player_rating);
    SELECT count(*) INTO v_locked FROM (
        SELECT 1 FROM accounts a
        WHERE a.account_id = ANY (p_player_ids) OR (p_lock_house AND a.account_id = '#house')
        ORDER BY a.account_id
        FOR UPDATE
    ) locked;
    IF v_locked <> cardinality(p_player_ids) + p_lock_house::int THEN
        RAISE EXCEPTION 'locked % accounts, expected %', v_locked,
            cardinality(p_player_ids) + p_lock_house::int USING ERRCODE = 'GH003';
    END IF;
    SELECT g.request_sha256, g.response INTO v_sha256, v_response
    FROM games g WHERE g.game_id = p_game_id;
    IF FOUND THEN
        RETURN QUERY SELECT v_sha256, v_response, NULL::text, NULL::bigint, NULL::date,
            NULL::bigint, NULL::bigint, NULL::bigint, NULL::bigint, NULL::bigint, NULL::smallint;
        RETURN;
    END IF;
    RETURN QUERY
        SELECT NULL::bytea, NULL::bytea, a.account_id::text, a.balance_silver, p.cap_day,
               p.won_today_silver, p.lost_today_silver, s.points, p.gomoku_rating,
               p.rated_games, p.professional_dan
        FROM accounts a
        JOIN players p ON p.player_id = a.account_id
        JOIN standings s ON s.player_id = a.account_id AND s.game_type = p_game_type
        WHERE a.account_id = ANY (p_player_ids)
          AND p.player_id = ANY (p_player_ids)
          AND s.player_id = ANY (p_player_ids);
END $$;

-- A settlement as the rules planned it (Rust's `repo::settlement` builds it): the game,
-- one seat per player in request order, the history rows.
CREATE TYPE ledger_settled_game AS (
    game_id            text,
    game_type          smallint,
    room_id            text,
    table_id           text,
    reason             text,
    points_base        bigint,
    silver_per_point   bigint,
    rated              boolean,
    started_at_unix_ms bigint,
    ended_at_unix_ms   bigint,
    cap_day            date,
    request_sha256     bytea,
    response           bytea,
    record_format      text,
    record_content     text,
    -- NULL when no silver moves (no transfer is written).
    transfer_id        uuid,
    house_silver       bigint,
    -- The rating of players who get their rows now.
    new_player_rating  bigint
);

CREATE TYPE ledger_settled_seat AS (
    player_id          text,
    -- The snapshot had no rows for this player: they are made here.
    missing            boolean,
    -- As reported.
    role               smallint,
    outcome            smallint,
    points             bigint,
    offered_draw       boolean,
    -- The silver asked for and moved (negative: paid).
    silver_requested   bigint,
    silver_delta       bigint,
    -- What the plan was computed from (as stored, NULL day included): the write happens
    -- only if the locked rows still hold exactly this.
    balance_before     bigint,
    cap_day_before     date,
    won_before         bigint,
    lost_before        bigint,
    points_before      bigint,
    rating_before      bigint,
    rated_games_before bigint,
    professional_dan   smallint,
    -- What the rules decided.
    won_today_after    bigint,
    lost_today_after   bigint,
    rating_after       bigint,
    -- What the game adds to the player's counts.
    wins               bigint,
    losses             bigint,
    draws              bigint,
    escapes            bigint,
    games              bigint,
    rated_games        bigint
);

CREATE TYPE ledger_history_row AS (
    player_id    text,
    kind         smallint,
    before_value bigint,
    after_value  bigint,
    reason       text
);

-- Writes a settlement the rules planned from a snapshot, if the snapshot still holds, in
-- one transaction: new players get their rows, the seats' accounts (and the house's when
-- it receives silver) are locked in account-id order, the snapshot is checked, and then
-- the game with its record and seats, the transfer with its entries, the players with
-- their standings, and the history are written (four statements).
-- Returns 1 when written, 0 when the snapshot is stale (nothing written but new players'
-- empty rows), 2 when the game was settled meanwhile (nothing written).
CREATE FUNCTION ledger_apply_settlement(
    p_game ledger_settled_game,
    p_seats ledger_settled_seat[],
    p_history ledger_history_row[]
) RETURNS smallint LANGUAGE plpgsql
SET plan_cache_mode = force_generic_plan
SET enable_seqscan = off
AS $$
DECLARE
    v_rows    integer;
    v_ids     text[];
    v_missing text[];
    v_lock    text[];
BEGIN
    SELECT array_agg(s.player_id ORDER BY s.ordinality),
           array_agg(s.player_id) FILTER (WHERE s.missing)
    INTO v_ids, v_missing
    FROM unnest(p_seats) WITH ORDINALITY AS s;
    IF v_missing IS NOT NULL THEN
        PERFORM ledger_ensure_players(v_missing, p_game.game_type, p_game.new_player_rating);
    END IF;

    v_lock := v_ids;
    IF p_game.house_silver > 0 THEN
        v_lock := v_lock || '#house'::text;
    END IF;
    SELECT count(*) INTO v_rows FROM (
        SELECT 1 FROM accounts a WHERE a.account_id = ANY (v_lock)
        ORDER BY a.account_id
        FOR UPDATE
    ) locked;
    IF v_rows <> cardinality(v_lock) THEN
        RAISE EXCEPTION 'locked % accounts, expected %', v_rows, cardinality(v_lock)
            USING ERRCODE = 'GH003';
    END IF;

    PERFORM 1 FROM games g WHERE g.game_id = p_game.game_id;
    IF FOUND THEN
        RETURN 2;
    END IF;

    -- The rows are locked: this reads their latest committed state.
    SELECT count(*) INTO v_rows
    FROM unnest(p_seats) AS e
    JOIN accounts a ON a.account_id = e.player_id
    JOIN players p ON p.player_id = e.player_id
    JOIN standings s ON s.player_id = e.player_id AND s.game_type = p_game.game_type
    WHERE a.account_id = ANY (v_ids)
      AND p.player_id = ANY (v_ids)
      AND s.player_id = ANY (v_ids)
      AND a.balance_silver = e.balance_before
      AND p.cap_day IS NOT DISTINCT FROM e.cap_day_before
      AND p.won_today_silver = e.won_before
      AND p.lost_today_silver = e.lost_before
      AND s.points = e.points_before
      AND p.gomoku_rating = e.rating_before
      AND p.rated_games = e.rated_games_before
      AND p.professional_dan = e.professional_dan;
    IF v_rows <> cardinality(v_ids) THEN
        RETURN 0;
    END IF;

    -- The game, its record and its seats.
    WITH game AS (
        INSERT INTO games (game_id, game_type, room_id, table_id, reason, points_base,
                           silver_per_point, rated, started_at_unix_ms, ended_at_unix_ms,
                           cap_day, house_silver, request_sha256, response)
        VALUES (p_game.game_id, p_game.game_type, p_game.room_id, p_game.table_id,
                p_game.reason, p_game.points_base, p_game.silver_per_point, p_game.rated,
                p_game.started_at_unix_ms, p_game.ended_at_unix_ms, p_game.cap_day,
                p_game.house_silver, p_game.request_sha256, p_game.response)
        RETURNING game_seq
    ), record AS (
        INSERT INTO game_records (game_id, format, content)
        VALUES (p_game.game_id, p_game.record_format, p_game.record_content)
    )
    INSERT INTO game_players (game_id, player_id, game_seq, seat, role, outcome, points,
                              offered_draw, silver_requested, silver_delta)
    SELECT p_game.game_id, s.player_id, game.game_seq, (s.ordinality - 1)::smallint, s.role,
           s.outcome, s.points, s.offered_draw, s.silver_requested, s.silver_delta
    FROM game, unnest(p_seats) WITH ORDINALITY AS s;

    -- The silver: one balanced transfer (the entries' trigger checks the balance).
    IF p_game.transfer_id IS NOT NULL THEN
        WITH transfer AS (
            INSERT INTO transfers (transfer_id, kind, game_id, cap_day)
            VALUES (p_game.transfer_id, 'settlement', p_game.game_id, p_game.cap_day)
            RETURNING transfer_id
        ), moves AS (
            SELECT m.player_id AS account_id, m.silver_delta AS delta
            FROM unnest(p_seats) AS m
            WHERE m.silver_delta <> 0
            UNION ALL
            SELECT '#house', p_game.house_silver WHERE p_game.house_silver <> 0
        ), moved AS (
            UPDATE accounts a SET balance_silver = a.balance_silver + moves.delta
            FROM moves WHERE a.account_id = moves.account_id AND a.account_id = ANY (v_lock)
            RETURNING a.account_id, moves.delta, a.balance_silver
        )
        INSERT INTO entries (transfer_id, account_id, amount_silver, balance_after_silver)
        SELECT transfer.transfer_id, moved.account_id, moved.delta, moved.balance_silver
        FROM transfer, moved;
    END IF;

    -- Cap counters and rating; points and counts, as computed in Rust.
    WITH seat AS (
        SELECT * FROM unnest(p_seats)
    ), player AS (
        UPDATE players p
        SET cap_day = p_game.cap_day,
            won_today_silver = seat.won_today_after,
            lost_today_silver = seat.lost_today_after,
            gomoku_rating = seat.rating_after,
            rated_games = p.rated_games + seat.rated_games
        FROM seat
        WHERE p.player_id = seat.player_id AND p.player_id = ANY (v_ids)
    )
    UPDATE standings s
    SET points = s.points + seat.points,
        wins = s.wins + seat.wins,
        losses = s.losses + seat.losses,
        draws = s.draws + seat.draws,
        escapes = s.escapes + seat.escapes,
        games = s.games + seat.games
    FROM seat
    WHERE s.player_id = seat.player_id AND s.game_type = p_game.game_type
      AND s.player_id = ANY (v_ids);

    INSERT INTO history (player_id, kind, game_type, game_id, before_value, after_value, reason)
    SELECT h.player_id, h.kind, p_game.game_type, p_game.game_id, h.before_value,
           h.after_value, h.reason
    FROM unnest(p_history) WITH ORDINALITY AS h
    ORDER BY h.ordinality;

    RETURN 1;
END $$;
