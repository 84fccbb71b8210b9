-- The operator audit trail (docs/operations.md#audit-trail): every operator action —
-- grants, professional dans, names set by an operator (written by the ledger in the
-- transaction that makes the change) and table closes and redeliveries (written through
-- `RecordOperatorAction` by the game service before it acts) — with who, when, what,
-- why and the request id. Append-only: a trigger refuses UPDATE, DELETE and TRUNCATE.
--
-- Safe while the previous version still runs (replicas roll): it only adds. The previous
-- version writes grants and `audit_log` rows and no `operator_actions`; the triggers at
-- the end copy what it writes here until it is gone. `audit_log` is no longer written by
-- this version; a later migration drops it and those triggers.

CREATE TABLE operator_actions (
    action_id      bigserial PRIMARY KEY,
    -- The idempotency key: the client's request id, or one the server gave. One row per
    -- id, whatever the kind.
    request_id     text COLLATE "C" NOT NULL UNIQUE,
    -- The API's OperatorActionKind code: 1 grant silver, 2 set professional, 3 set name,
    -- 4 close table, 5 redeliver.
    kind           smallint NOT NULL CHECK (kind BETWEEN 1 AND 5),
    -- Who: the subject of the operator's token.
    operator       text NOT NULL CHECK (operator <> ''),
    -- The caller that wrote the row: the operator (ledger actions) or the game service's
    -- identity (closes, redeliveries).
    recorded_by    text NOT NULL CHECK (recorded_by <> ''),
    -- When, by the ledger's clock (passed in, the server's time).
    at             timestamptz NOT NULL,
    -- Why. Rows copied from before this migration say that none was asked.
    reason         text NOT NULL CHECK (btrim(reason) <> ''),
    -- The target, by kind: a player (1–3), a table (4), a game (5; none for "all").
    player_id      text COLLATE "C",
    table_id       text COLLATE "C",
    game_id        text COLLATE "C",
    -- The details, by kind: amount_silver and transfer_id (1); professional_dan and
    -- professional_dan_before (2); name and name_before, null for none (3);
    -- all_dead_letters (5).
    details        jsonb NOT NULL DEFAULT '{}',
    -- SHA-256 of the canonical request, so a retry under the same id must carry the same
    -- payload; null for rows copied from before this migration.
    request_sha256 bytea CHECK (request_sha256 IS NULL OR length(request_sha256) = 32),
    CHECK ((kind IN (1, 2, 3)) = (player_id IS NOT NULL)),
    CHECK ((kind = 4) = (table_id IS NOT NULL)),
    CHECK (kind = 5 OR game_id IS NULL)
);
CREATE INDEX operator_actions_by_at ON operator_actions (at DESC, action_id DESC);
CREATE INDEX operator_actions_by_operator ON operator_actions (operator, action_id DESC);
CREATE INDEX operator_actions_by_player ON operator_actions (player_id, action_id DESC)
    WHERE player_id IS NOT NULL;
CREATE INDEX operator_actions_by_table ON operator_actions (table_id, action_id DESC)
    WHERE table_id IS NOT NULL;
CREATE INDEX operator_actions_by_game ON operator_actions (game_id, action_id DESC)
    WHERE game_id IS NOT NULL;

-- Append-only: what is written stays written (0001's `ledger_immutable`, GH002).
CREATE TRIGGER operator_actions_immutable BEFORE UPDATE OR DELETE ON operator_actions
    FOR EACH ROW EXECUTE FUNCTION ledger_immutable();
CREATE TRIGGER operator_actions_not_truncated BEFORE TRUNCATE ON operator_actions
    FOR EACH STATEMENT EXECUTE FUNCTION ledger_immutable();
REVOKE UPDATE, DELETE, TRUNCATE ON operator_actions FROM PUBLIC;

-- What was audited before: every grant, then `audit_log` (professional dans, names set
-- by an operator), in the order written. Their request ids are made up, in a namespace
-- a client's id cannot use ('#' is not an id character).
INSERT INTO operator_actions
    (request_id, kind, operator, recorded_by, at, reason, player_id, details)
SELECT request_id, 1, granted_by, granted_by, created_at, reason, player_id,
       jsonb_build_object('amount_silver', amount_silver, 'transfer_id', transfer_id::text)
FROM grants
ORDER BY created_at, request_id;

CREATE FUNCTION ledger_audit_log_copy() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO operator_actions
        (request_id, kind, operator, recorded_by, at, reason, player_id, details)
    VALUES (
        '#audit_log:' || NEW.audit_id,
        CASE NEW.action WHEN 'set_professional' THEN 2 ELSE 3 END,
        NEW.actor, NEW.actor, NEW.at,
        '(no reason: recorded before reasons were asked for)',
        NEW.player_id,
        CASE NEW.action
            WHEN 'set_professional' THEN jsonb_build_object(
                'professional_dan', NEW.detail -> 'after',
                'professional_dan_before', NEW.detail -> 'before')
            ELSE jsonb_build_object(
                'name', NEW.detail -> 'after',
                'name_before', NEW.detail -> 'before')
        END)
    ON CONFLICT (request_id) DO NOTHING;
    RETURN NULL;
END $$;

INSERT INTO operator_actions
    (request_id, kind, operator, recorded_by, at, reason, player_id, details)
SELECT '#audit_log:' || audit_id,
       CASE action WHEN 'set_professional' THEN 2 ELSE 3 END,
       actor, actor, at,
       '(no reason: recorded before reasons were asked for)',
       player_id,
       CASE action
           WHEN 'set_professional' THEN jsonb_build_object(
               'professional_dan', detail -> 'after',
               'professional_dan_before', detail -> 'before')
           ELSE jsonb_build_object('name', detail -> 'after', 'name_before', detail -> 'before')
       END
FROM audit_log
WHERE action IN ('set_professional', 'set_name')
ORDER BY audit_id;

-- During a roll, what the previous version writes is copied here as it is written. This
-- version writes its grant's row before the grant, so the copy of its own grants finds
-- the id taken and adds nothing.
CREATE FUNCTION ledger_grant_copy() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO operator_actions
        (request_id, kind, operator, recorded_by, at, reason, player_id, details)
    VALUES (
        NEW.request_id, 1, NEW.granted_by, NEW.granted_by, NEW.created_at, NEW.reason,
        NEW.player_id,
        jsonb_build_object('amount_silver', NEW.amount_silver,
                           'transfer_id', NEW.transfer_id::text))
    ON CONFLICT (request_id) DO NOTHING;
    RETURN NULL;
END $$;
CREATE TRIGGER grants_copied_to_operator_actions AFTER INSERT ON grants
    FOR EACH ROW EXECUTE FUNCTION ledger_grant_copy();
CREATE TRIGGER audit_log_copied_to_operator_actions AFTER INSERT ON audit_log
    FOR EACH ROW WHEN (NEW.action IN ('set_professional', 'set_name'))
    EXECUTE FUNCTION ledger_audit_log_copy();
