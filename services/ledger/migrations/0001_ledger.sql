-- The ledger's schema: double-entry silver, player standings, games and history.
--
-- Rules live in Rust (crate gamehub-ledger, module `domain`); this schema stores their
-- results and backs the money rules up with constraints and triggers:
--   * every transfer's entries sum to zero (statement trigger on `entries`);
--   * player and house balances never go below zero, the issuance account never above;
--   * transfers, entries, history, grants and games are immutable once written.
-- Ids are compared byte-wise (COLLATE "C") so that SQL's ORDER BY and Rust's sort agree:
-- rows are always locked in that one order.

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
-- the daily cap counters. Writers lock the player's `accounts` row first.
CREATE TABLE players (
    player_id         text COLLATE "C" PRIMARY KEY REFERENCES accounts (account_id),
    gomoku_rating     bigint NOT NULL DEFAULT 2000,
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

-- Points (积分) and win/loss counts per game type (1 = Gomoku, 2 = Dou Dizhu).
CREATE TABLE standings (
    player_id text COLLATE "C" NOT NULL REFERENCES players (player_id),
    game_type smallint NOT NULL CHECK (game_type IN (1, 2)),
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
    game_type           smallint NOT NULL CHECK (game_type IN (1, 2)),
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

-- Records are kept apart: they are large and read one at a time.
CREATE TABLE game_records (
    game_id text COLLATE "C" PRIMARY KEY REFERENCES games (game_id),
    format  text NOT NULL,
    content text NOT NULL
);

-- Each player's part in a settled game, in seat order (the order of the request).
CREATE TABLE game_players (
    game_id          text COLLATE "C" NOT NULL REFERENCES games (game_id),
    player_id        text COLLATE "C" NOT NULL REFERENCES players (player_id),
    game_seq         bigint NOT NULL,
    seat             smallint NOT NULL,
    role             smallint NOT NULL,
    outcome          smallint NOT NULL,
    points           bigint NOT NULL,
    offered_draw     boolean NOT NULL,
    silver_requested bigint NOT NULL,
    silver_delta     bigint NOT NULL,
    PRIMARY KEY (game_id, player_id),
    UNIQUE (game_id, seat)
);
CREATE INDEX game_players_by_player ON game_players (player_id, game_seq DESC);

-- Double entry: a transfer is one balanced movement of silver (a grant, or a game's
-- settlement); its entries say how much each account gained (+) or gave (-).
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

-- Every change to a player's silver, points, title or rating, with its cause.
-- kind: 1 silver, 2 points, 3 title (level), 4 Gomoku rating (as in HistoryKind).
CREATE TABLE history (
    history_id   bigserial PRIMARY KEY,
    player_id    text COLLATE "C" NOT NULL REFERENCES players (player_id),
    kind         smallint NOT NULL CHECK (kind BETWEEN 1 AND 4),
    game_type    smallint CHECK (game_type IN (1, 2)),
    game_id      text COLLATE "C" REFERENCES games (game_id),
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

-- Step 1 of a settlement, inside its transaction: make sure every player has its rows,
-- lock the players' accounts (and the house's, when a penalty goes there) in account-id
-- order, and read what the rules need. When the game was already settled, returns one
-- row carrying the stored request hash and response instead (and locks nothing more).
CREATE FUNCTION ledger_lock_for_settlement(
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
    v_sorted   text[];
    v_locked   integer;
BEGIN
    SELECT g.request_sha256, g.response INTO v_sha256, v_response
    FROM games g WHERE g.game_id = p_game_id;
    IF FOUND THEN
        RETURN QUERY SELECT v_sha256, v_response, NULL::text, NULL::bigint, NULL::date,
            NULL::bigint, NULL::bigint, NULL::bigint, NULL::bigint, NULL::bigint, NULL::smallint;
        RETURN;
    END IF;

    -- New players get their rows first, always in id order (see the header).
    SELECT array_agg(id ORDER BY id) INTO v_sorted FROM unnest(p_player_ids) AS u(id);
    INSERT INTO accounts (account_id, kind)
        SELECT id, 'player' FROM unnest(v_sorted) AS u(id) ON CONFLICT DO NOTHING;
    INSERT INTO players (player_id)
        SELECT id FROM unnest(v_sorted) AS u(id) ON CONFLICT DO NOTHING;
    INSERT INTO standings (player_id, game_type)
        SELECT id, p_game_type FROM unnest(v_sorted) AS u(id) ON CONFLICT DO NOTHING;

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

    RETURN QUERY
        SELECT NULL::bytea, NULL::bytea, a.account_id::text, a.balance_silver, p.cap_day,
               p.won_today_silver, p.lost_today_silver, s.points, p.gomoku_rating,
               p.rated_games, p.professional_dan
        FROM accounts a
        JOIN players p ON p.player_id = a.account_id
        JOIN standings s ON s.player_id = a.account_id AND s.game_type = p_game_type
        WHERE a.account_id = ANY (p_player_ids);
END $$;

-- Step 2 of a settlement, in the same transaction as step 1: write what the rules
-- decided. Arrays starting with p_seat_ are per seat in request order; p_history_ arrays
-- are the history rows. Balances move by deltas and are then checked against the values
-- the rules computed from the locked snapshot: a mismatch means the locking discipline
-- broke, and the whole settlement is refused.
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
    p_seat_roles smallint[],
    p_seat_outcomes smallint[],
    p_seat_points bigint[],
    p_seat_offered_draw boolean[],
    p_seat_silver_requested bigint[],
    p_seat_silver_delta bigint[],
    p_seat_balance_after bigint[],
    p_seat_won_today_after bigint[],
    p_seat_lost_today_after bigint[],
    p_seat_points_after bigint[],
    p_seat_rating_before bigint[],
    p_seat_rating_after bigint[],
    p_history_player_ids text[],
    p_history_kinds smallint[],
    p_history_before bigint[],
    p_history_after bigint[],
    p_history_reasons text[]
) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    v_seq   bigint;
    v_rows  integer;
    v_seats integer := cardinality(p_seat_player_ids);
BEGIN
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

        PERFORM 1
        FROM unnest(p_seat_player_ids, p_seat_balance_after) AS b(account_id, after)
        JOIN accounts a ON a.account_id = b.account_id
        WHERE a.balance_silver <> b.after;
        IF FOUND THEN
            RAISE EXCEPTION 'game %: balances differ from the planned ones', p_game_id
                USING ERRCODE = 'GH004';
        END IF;
    END IF;

    UPDATE players p
    SET cap_day = p_cap_day,
        won_today_silver = u.won,
        lost_today_silver = u.lost,
        gomoku_rating = CASE WHEN p_rated THEN u.rating_after ELSE p.gomoku_rating END,
        rated_games = p.rated_games + p_rated::int
    FROM unnest(p_seat_player_ids, p_seat_won_today_after, p_seat_lost_today_after,
                p_seat_rating_before, p_seat_rating_after)
         AS u(player_id, won, lost, rating_before, rating_after)
    WHERE p.player_id = u.player_id AND (NOT p_rated OR p.gomoku_rating = u.rating_before);
    GET DIAGNOSTICS v_rows = ROW_COUNT;
    IF v_rows <> v_seats THEN
        RAISE EXCEPTION 'game %: ratings differ from the planned ones', p_game_id
            USING ERRCODE = 'GH004';
    END IF;

    -- Outcome codes as in PlayerOutcome: 1 win, 2 loss, 3 draw, 4 escape, 5 void.
    UPDATE standings s
    SET points = s.points + u.points,
        wins = s.wins + (u.outcome = 1)::int,
        losses = s.losses + (u.outcome = 2)::int,
        draws = s.draws + (u.outcome = 3)::int,
        escapes = s.escapes + (u.outcome = 4)::int,
        games = s.games + (u.outcome <> 5)::int
    FROM unnest(p_seat_player_ids, p_seat_points, p_seat_outcomes, p_seat_points_after)
         AS u(player_id, points, outcome, points_after)
    WHERE s.player_id = u.player_id AND s.game_type = p_game_type
      AND s.points + u.points = u.points_after;
    GET DIAGNOSTICS v_rows = ROW_COUNT;
    IF v_rows <> v_seats THEN
        RAISE EXCEPTION 'game %: points differ from the planned ones', p_game_id
            USING ERRCODE = 'GH004';
    END IF;

    INSERT INTO history (player_id, kind, game_type, game_id, before_value, after_value, reason)
    SELECT h.player_id, h.kind, p_game_type, p_game_id, h.before_value, h.after_value, h.reason
    FROM unnest(p_history_player_ids, p_history_kinds, p_history_before, p_history_after,
                p_history_reasons)
         WITH ORDINALITY AS h(player_id, kind, before_value, after_value, reason, ord)
    ORDER BY h.ord;

    RETURN v_seq;
END $$;

-- The leaderboards in one shape. board: 1 Gomoku points, 2 Dou Dizhu points (only players
-- who played that game), 3 Gomoku rating (only players with a rated game), as in the
-- proto's Board enum.
CREATE VIEW leaderboard AS
    SELECT s.game_type AS board, s.player_id, s.points AS value, 0::smallint AS professional_dan
    FROM standings s WHERE s.games > 0
    UNION ALL
    SELECT 3::smallint, p.player_id, p.gomoku_rating, p.professional_dan
    FROM players p WHERE p.rated_games > 0;
