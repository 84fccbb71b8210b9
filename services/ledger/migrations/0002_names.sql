-- Display names (昵称, docs/rules.md#names) and friends' tables (好友房,
-- docs/rules.md#friends-tables) in the ledger's games.
--
-- Safe while the previous version still runs (replicas roll): it only adds. The previous
-- version's `ledger_apply_settlement(ledger_settled_game, …)` stays as it was and writes
-- its games with friends_table false (it knows no friends' tables); this version calls
-- the overload below, whose game record carries the flag. A later migration drops the
-- old function and type once no version calling them runs.

-- A player's display name, checked and normalised (NFC) in Rust
-- (`gamehub_terms::names::DisplayName`, the rule's one definition) before it gets here.
-- No row: the player has none (it is shown by its id). A name needs no account: a player
-- may name itself before it ever plays. Names need not be unique.
CREATE TABLE names (
    player_id  text COLLATE "C" PRIMARY KEY,
    name       text NOT NULL CHECK (name <> ''),
    updated_at timestamptz NOT NULL DEFAULT now(),
    -- Who set it: the player itself, or the operator (operators' changes are also in
    -- audit_log).
    updated_by text NOT NULL
);

-- Whether the game was played at a friends' table. Part of the settled request (its
-- hash), written with the game and immutable like it; games settled before this
-- migration were not.
ALTER TABLE games ADD COLUMN friends_table boolean NOT NULL DEFAULT false;

-- 0001's `ledger_settled_game` with the friends' table flag.
CREATE TYPE ledger_settled_game_v2 AS (
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
    new_player_rating  bigint,
    -- Played at a friends' table (好友房).
    friends_table      boolean
);

-- 0001's function with the game's friends_table written, as an overload taking the new
-- game record. Writes a settlement the rules planned from a snapshot, if the snapshot
-- still holds, in one transaction: new players get their rows, the seats' accounts (and
-- the house's when it receives silver) are locked in account-id order, the snapshot is
-- checked, and then the game with its record and seats, the transfer with its entries,
-- the players with their standings, and the history are written (four statements).
-- Returns 1 when written, 0 when the snapshot is stale (nothing written but new players'
-- empty rows), 2 when the game was settled meanwhile (nothing written).
CREATE FUNCTION ledger_apply_settlement(
    p_game ledger_settled_game_v2,
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
                           cap_day, house_silver, request_sha256, response, friends_table)
        VALUES (p_game.game_id, p_game.game_type, p_game.room_id, p_game.table_id,
                p_game.reason, p_game.points_base, p_game.silver_per_point, p_game.rated,
                p_game.started_at_unix_ms, p_game.ended_at_unix_ms, p_game.cap_day,
                p_game.house_silver, p_game.request_sha256, p_game.response,
                p_game.friends_table)
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
