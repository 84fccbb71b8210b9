-- Settling in two round trips.
--
-- 0001 settled in four round trips: BEGIN, lock-and-read, write, COMMIT. Now the write
-- is one self-contained transaction that checks its own precondition:
--
--   1. ledger_snapshot_for_settlement reads the players (no locks, no transaction);
--   2. the rules run in Rust on that snapshot;
--   3. ledger_apply_settlement, in one transaction: gives new players their rows, locks
--      the accounts in account-id order, checks that nothing it read has changed since
--      (balance, cap counters, points, rating, rated games, professional dan), and only
--      then writes. If something changed it writes nothing and answers "stale"; the
--      settlement is then redone under locks: BEGIN, the snapshot with p_lock = true
--      (rows locked in the same order), apply, COMMIT. That path cannot go stale, so
--      contention costs at most one extra try.
--
-- History rows and seats no longer carry foreign keys to players and games: they are
-- written in the same transaction as the rows they name, under the players' locks, and
-- the checks cost a lookup per row on the hottest path. Money keeps its keys (entries to
-- accounts and transfers, transfers to games).

ALTER TABLE history DROP CONSTRAINT history_player_id_fkey;
ALTER TABLE history DROP CONSTRAINT history_game_id_fkey;
ALTER TABLE game_players DROP CONSTRAINT game_players_player_id_fkey;

DROP FUNCTION ledger_lock_for_settlement(text, text[], smallint, boolean);
DROP FUNCTION ledger_apply_settlement(text, smallint, text, text, text, bigint, bigint, boolean,
    bigint, bigint, date, bytea, bytea, text, text, uuid, bigint, text[], smallint[], smallint[],
    bigint[], boolean[], bigint[], bigint[], bigint[], bigint[], bigint[], bigint[], bigint[],
    bigint[], text[], smallint[], bigint[], bigint[], text[]);

-- Gives players that have none their account, player and standing rows, in id order
-- (two settlements creating the same players queue on the first one instead of
-- deadlocking). Existing rows are neither changed nor locked.
CREATE FUNCTION ledger_ensure_players(p_player_ids text[], p_game_type smallint)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v_sorted text[];
BEGIN
    SELECT array_agg(id ORDER BY id) INTO v_sorted FROM unnest(p_player_ids) AS u(id);
    INSERT INTO accounts (account_id, kind)
        SELECT id, 'player' FROM unnest(v_sorted) AS u(id) ON CONFLICT DO NOTHING;
    INSERT INTO players (player_id)
        SELECT id FROM unnest(v_sorted) AS u(id) ON CONFLICT DO NOTHING;
    INSERT INTO standings (player_id, game_type)
        SELECT id, p_game_type FROM unnest(v_sorted) AS u(id) ON CONFLICT DO NOTHING;
END $$;

-- What a settlement reads: when the game was settled already, one row with the stored
-- request hash and response; else one row per known player (a player without rows, or
-- without a standing in this game type, reads as NULLs there). With p_lock (inside a
-- transaction), new players get their rows first and the players' accounts, and the
-- house's with p_lock_house, are locked in account-id order.
CREATE FUNCTION ledger_snapshot_for_settlement(
    p_game_id text,
    p_player_ids text[],
    p_game_type smallint,
    p_lock boolean,
    p_lock_house boolean
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
) LANGUAGE plpgsql AS $$
DECLARE
    v_sha256   bytea;
    v_response bytea;
    v_locked   integer;
BEGIN
    SELECT g.request_sha256, g.response INTO v_sha256, v_response
    FROM games g WHERE g.game_id = p_game_id;
    IF FOUND THEN
        RETURN QUERY SELECT v_sha256, v_response, NULL::text, NULL::bigint, NULL::date,
            NULL::bigint, NULL::bigint, NULL::bigint, NULL::bigint, NULL::bigint, NULL::smallint;
        RETURN;
    END IF;

    IF p_lock THEN
        PERFORM ledger_ensure_players(p_player_ids, p_game_type);
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
        -- A duplicate of this request may have held these locks and committed meanwhile.
        SELECT g.request_sha256, g.response INTO v_sha256, v_response
        FROM games g WHERE g.game_id = p_game_id;
        IF FOUND THEN
            RETURN QUERY SELECT v_sha256, v_response, NULL::text, NULL::bigint, NULL::date,
                NULL::bigint, NULL::bigint, NULL::bigint, NULL::bigint, NULL::bigint, NULL::smallint;
            RETURN;
        END IF;
    END IF;

    RETURN QUERY
        SELECT NULL::bytea, NULL::bytea, a.account_id::text, a.balance_silver, p.cap_day,
               p.won_today_silver, p.lost_today_silver, s.points, p.gomoku_rating,
               p.rated_games, p.professional_dan
        FROM accounts a
        JOIN players p ON p.player_id = a.account_id
        LEFT JOIN standings s ON s.player_id = a.account_id AND s.game_type = p_game_type
        WHERE a.account_id = ANY (p_player_ids);
END $$;

-- Writes a settlement the rules planned from a snapshot, if the snapshot still holds.
-- Arrays starting with p_seat_ are per seat in request order: the p_seat_*_before ones
-- are what the plan was computed from (as stored, NULL day included), p_seat_missing
-- flags players the snapshot had no rows for. p_history_ arrays are the history rows.
-- Returns 1 when written, 0 when the snapshot is stale (nothing written but new players'
-- empty rows), 2 when the game was settled meanwhile (nothing written).
CREATE FUNCTION ledger_apply_settlement(
    p_game_id text,
    p_game_type smallint,
    p_room_id text,
    p_table_id text,
    p_reason text,
    p_points_base bigint,
    p_silver_per_point bigint,
    p_rated boolean,
    p_started_at_unix_ms bigint,
    p_ended_at_unix_ms bigint,
    p_cap_day date,
    p_request_sha256 bytea,
    p_response bytea,
    p_record_format text,
    p_record_content text,
    p_transfer_id uuid,
    p_house_silver bigint,
    p_seat_player_ids text[],
    p_seat_missing boolean[],
    p_seat_roles smallint[],
    p_seat_outcomes smallint[],
    p_seat_points bigint[],
    p_seat_offered_draw boolean[],
    p_seat_silver_requested bigint[],
    p_seat_silver_delta bigint[],
    p_seat_balance_before bigint[],
    p_seat_cap_day_before date[],
    p_seat_won_before bigint[],
    p_seat_lost_before bigint[],
    p_seat_points_before bigint[],
    p_seat_rating_before bigint[],
    p_seat_rated_games_before bigint[],
    p_seat_professional_dan smallint[],
    p_seat_won_today_after bigint[],
    p_seat_lost_today_after bigint[],
    p_seat_rating_after bigint[],
    p_history_player_ids text[],
    p_history_kinds smallint[],
    p_history_before bigint[],
    p_history_after bigint[],
    p_history_reasons text[]
) RETURNS smallint LANGUAGE plpgsql AS $$
DECLARE
    v_seq     bigint;
    v_rows    integer;
    v_seats   integer := cardinality(p_seat_player_ids);
    v_missing text[];
BEGIN
    SELECT array_agg(m.id) INTO v_missing
    FROM unnest(p_seat_player_ids, p_seat_missing) AS m(id, missing) WHERE m.missing;
    IF v_missing IS NOT NULL THEN
        PERFORM ledger_ensure_players(v_missing, p_game_type);
    END IF;

    SELECT count(*) INTO v_rows FROM (
        SELECT 1 FROM accounts a
        WHERE a.account_id = ANY (p_seat_player_ids)
           OR (p_house_silver > 0 AND a.account_id = '#house')
        ORDER BY a.account_id
        FOR UPDATE
    ) locked;
    IF v_rows <> v_seats + (p_house_silver > 0)::int THEN
        RAISE EXCEPTION 'locked % accounts, expected %', v_rows,
            v_seats + (p_house_silver > 0)::int USING ERRCODE = 'GH003';
    END IF;

    PERFORM 1 FROM games g WHERE g.game_id = p_game_id;
    IF FOUND THEN
        RETURN 2;
    END IF;

    -- The rows are locked: this reads their latest committed state.
    SELECT count(*) INTO v_rows
    FROM unnest(p_seat_player_ids, p_seat_balance_before, p_seat_cap_day_before,
                p_seat_won_before, p_seat_lost_before, p_seat_points_before,
                p_seat_rating_before, p_seat_rated_games_before, p_seat_professional_dan)
         AS e(player_id, balance, cap_day, won, lost, points, rating, rated_games, dan)
    JOIN accounts a ON a.account_id = e.player_id
    JOIN players p ON p.player_id = e.player_id
    JOIN standings s ON s.player_id = e.player_id AND s.game_type = p_game_type
    WHERE a.balance_silver = e.balance
      AND p.cap_day IS NOT DISTINCT FROM e.cap_day
      AND p.won_today_silver = e.won
      AND p.lost_today_silver = e.lost
      AND s.points = e.points
      AND p.gomoku_rating = e.rating
      AND p.rated_games = e.rated_games
      AND p.professional_dan = e.dan;
    IF v_rows <> v_seats THEN
        RETURN 0;
    END IF;

    INSERT INTO games (game_id, game_type, room_id, table_id, reason, points_base,
                       silver_per_point, rated, started_at_unix_ms, ended_at_unix_ms, cap_day,
                       house_silver, request_sha256, response)
    VALUES (p_game_id, p_game_type, p_room_id, p_table_id, p_reason, p_points_base,
            p_silver_per_point, p_rated, p_started_at_unix_ms, p_ended_at_unix_ms, p_cap_day,
            p_house_silver, p_request_sha256, p_response)
    RETURNING game_seq INTO v_seq;

    INSERT INTO game_records (game_id, format, content)
    VALUES (p_game_id, p_record_format, p_record_content);

    INSERT INTO game_players (game_id, player_id, game_seq, seat, role, outcome, points,
                              offered_draw, silver_requested, silver_delta)
    SELECT p_game_id, s.player_id, v_seq, (s.ord - 1)::smallint, s.role, s.outcome, s.points,
           s.offered_draw, s.requested, s.delta
    FROM unnest(p_seat_player_ids, p_seat_roles, p_seat_outcomes, p_seat_points,
                p_seat_offered_draw, p_seat_silver_requested, p_seat_silver_delta)
         WITH ORDINALITY AS s(player_id, role, outcome, points, offered_draw, requested, delta, ord);

    IF p_transfer_id IS NOT NULL THEN
        INSERT INTO transfers (transfer_id, kind, game_id, cap_day)
        VALUES (p_transfer_id, 'settlement', p_game_id, p_cap_day);

        WITH moves AS (
            SELECT m.account_id, m.delta
            FROM unnest(p_seat_player_ids, p_seat_silver_delta) AS m(account_id, delta)
            WHERE m.delta <> 0
            UNION ALL
            SELECT '#house', p_house_silver WHERE p_house_silver <> 0
        ), moved AS (
            UPDATE accounts a SET balance_silver = a.balance_silver + moves.delta
            FROM moves WHERE a.account_id = moves.account_id
            RETURNING a.account_id, moves.delta, a.balance_silver
        )
        INSERT INTO entries (transfer_id, account_id, amount_silver, balance_after_silver)
        SELECT p_transfer_id, moved.account_id, moved.delta, moved.balance_silver FROM moved;
    END IF;

    UPDATE players p
    SET cap_day = p_cap_day,
        won_today_silver = u.won,
        lost_today_silver = u.lost,
        gomoku_rating = u.rating_after,
        rated_games = p.rated_games + p_rated::int
    FROM unnest(p_seat_player_ids, p_seat_won_today_after, p_seat_lost_today_after,
                p_seat_rating_after) AS u(player_id, won, lost, rating_after)
    WHERE p.player_id = u.player_id;

    -- Outcome codes as in PlayerOutcome: 1 win, 2 loss, 3 draw, 4 escape, 5 void.
    UPDATE standings s
    SET points = s.points + u.points,
        wins = s.wins + (u.outcome = 1)::int,
        losses = s.losses + (u.outcome = 2)::int,
        draws = s.draws + (u.outcome = 3)::int,
        escapes = s.escapes + (u.outcome = 4)::int,
        games = s.games + (u.outcome <> 5)::int
    FROM unnest(p_seat_player_ids, p_seat_points, p_seat_outcomes)
         AS u(player_id, points, outcome)
    WHERE s.player_id = u.player_id AND s.game_type = p_game_type;

    INSERT INTO history (player_id, kind, game_type, game_id, before_value, after_value, reason)
    SELECT h.player_id, h.kind, p_game_type, p_game_id, h.before_value, h.after_value, h.reason
    FROM unnest(p_history_player_ids, p_history_kinds, p_history_before, p_history_after,
                p_history_reasons)
         WITH ORDINALITY AS h(player_id, kind, before_value, after_value, reason, ord)
    ORDER BY h.ord;

    RETURN 1;
END $$;
