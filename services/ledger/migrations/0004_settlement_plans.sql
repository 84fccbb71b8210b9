-- Stable plans for the settlement functions.
--
-- Their statements take arrays of 2–3 seats, for which PostgreSQL guesses 10 elements.
-- Generic plans therefore looked costlier than custom ones and every call re-planned
-- every statement (a profile under load: about a third of the database's CPU in the
-- planner); and a generic plan made while a table was small kept hash-joining over a
-- sequential scan of it as it grew. Now every table access carries an indexable
-- predicate on the seats' ids, and the functions run with generic plans and without
-- sequential scans: one plan per statement and session, always by primary key.
--
-- The bodies are 0003's with the `= ANY (ids)` predicates added.

CREATE OR REPLACE FUNCTION ledger_lock_for_settlement(
    p_game_id text,
    p_player_ids text[],
    p_game_type smallint,
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

CREATE OR REPLACE FUNCTION ledger_apply_settlement(
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
    v_rows    integer;
    v_seats   integer := cardinality(p_seat_player_ids);
    v_missing text[];
    v_lock    text[] := p_seat_player_ids;
BEGIN
    SELECT array_agg(m.id) INTO v_missing
    FROM unnest(p_seat_player_ids, p_seat_missing) AS m(id, missing) WHERE m.missing;
    IF v_missing IS NOT NULL THEN
        PERFORM ledger_ensure_players(v_missing, p_game_type);
    END IF;

    IF p_house_silver > 0 THEN
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
    WHERE a.account_id = ANY (p_seat_player_ids)
      AND p.player_id = ANY (p_seat_player_ids)
      AND s.player_id = ANY (p_seat_player_ids)
      AND a.balance_silver = e.balance
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

    -- The game, its record and its seats.
    WITH game AS (
        INSERT INTO games (game_id, game_type, room_id, table_id, reason, points_base,
                           silver_per_point, rated, started_at_unix_ms, ended_at_unix_ms,
                           cap_day, house_silver, request_sha256, response)
        VALUES (p_game_id, p_game_type, p_room_id, p_table_id, p_reason, p_points_base,
                p_silver_per_point, p_rated, p_started_at_unix_ms, p_ended_at_unix_ms,
                p_cap_day, p_house_silver, p_request_sha256, p_response)
        RETURNING game_seq
    ), record AS (
        INSERT INTO game_records (game_id, format, content)
        VALUES (p_game_id, p_record_format, p_record_content)
    )
    INSERT INTO game_players (game_id, player_id, game_seq, seat, role, outcome, points,
                              offered_draw, silver_requested, silver_delta)
    SELECT p_game_id, s.player_id, game.game_seq, (s.ord - 1)::smallint, s.role, s.outcome,
           s.points, s.offered_draw, s.requested, s.delta
    FROM game,
         unnest(p_seat_player_ids, p_seat_roles, p_seat_outcomes, p_seat_points,
                p_seat_offered_draw, p_seat_silver_requested, p_seat_silver_delta)
         WITH ORDINALITY AS s(player_id, role, outcome, points, offered_draw, requested, delta, ord);

    -- The silver: one balanced transfer (the entries' trigger checks the balance).
    IF p_transfer_id IS NOT NULL THEN
        WITH transfer AS (
            INSERT INTO transfers (transfer_id, kind, game_id, cap_day)
            VALUES (p_transfer_id, 'settlement', p_game_id, p_cap_day)
            RETURNING transfer_id
        ), moves AS (
            SELECT m.account_id, m.delta
            FROM unnest(p_seat_player_ids, p_seat_silver_delta) AS m(account_id, delta)
            WHERE m.delta <> 0
            UNION ALL
            SELECT '#house', p_house_silver WHERE p_house_silver <> 0
        ), moved AS (
            UPDATE accounts a SET balance_silver = a.balance_silver + moves.delta
            FROM moves WHERE a.account_id = moves.account_id AND a.account_id = ANY (v_lock)
            RETURNING a.account_id, moves.delta, a.balance_silver
        )
        INSERT INTO entries (transfer_id, account_id, amount_silver, balance_after_silver)
        SELECT transfer.transfer_id, moved.account_id, moved.delta, moved.balance_silver
        FROM transfer, moved;
    END IF;

    -- Cap counters and rating; points and counts. Outcome codes as in PlayerOutcome:
    -- 1 win, 2 loss, 3 draw, 4 escape, 5 void.
    WITH seat AS (
        SELECT * FROM unnest(p_seat_player_ids, p_seat_won_today_after, p_seat_lost_today_after,
                             p_seat_rating_after, p_seat_points, p_seat_outcomes)
               AS u(player_id, won, lost, rating_after, points, outcome)
    ), player AS (
        UPDATE players p
        SET cap_day = p_cap_day,
            won_today_silver = seat.won,
            lost_today_silver = seat.lost,
            gomoku_rating = seat.rating_after,
            rated_games = p.rated_games + p_rated::int
        FROM seat
        WHERE p.player_id = seat.player_id AND p.player_id = ANY (p_seat_player_ids)
    )
    UPDATE standings s
    SET points = s.points + seat.points,
        wins = s.wins + (seat.outcome = 1)::int,
        losses = s.losses + (seat.outcome = 2)::int,
        draws = s.draws + (seat.outcome = 3)::int,
        escapes = s.escapes + (seat.outcome = 4)::int,
        games = s.games + (seat.outcome <> 5)::int
    FROM seat
    WHERE s.player_id = seat.player_id AND s.game_type = p_game_type
      AND s.player_id = ANY (p_seat_player_ids);

    INSERT INTO history (player_id, kind, game_type, game_id, before_value, after_value, reason)
    SELECT h.player_id, h.kind, p_game_type, p_game_id, h.before_value, h.after_value, h.reason
    FROM unnest(p_history_player_ids, p_history_kinds, p_history_before, p_history_after,
                p_history_reasons)
         WITH ORDINALITY AS h(player_id, kind, before_value, after_value, reason, ord)
    ORDER BY h.ord;

    RETURN 1;
END $$;

ALTER FUNCTION ledger_apply_settlement(text, smallint, text, text, text, bigint, bigint,
    boolean, bigint, bigint, date, bytea, bytea, text, text, uuid, bigint, text[],
    boolean[], smallint[], smallint[], bigint[], boolean[], bigint[], bigint[], bigint[],
    date[], bigint[], bigint[], bigint[], bigint[], bigint[], smallint[], bigint[],
    bigint[], bigint[], text[], smallint[], bigint[], bigint[], text[])
    SET plan_cache_mode = force_generic_plan
    SET enable_seqscan = off;

ALTER FUNCTION ledger_lock_for_settlement(text, text[], smallint, boolean)
    SET plan_cache_mode = force_generic_plan
    SET enable_seqscan = off;

ALTER FUNCTION ledger_ensure_players(text[], smallint)
    SET plan_cache_mode = force_generic_plan
    SET enable_seqscan = off;
