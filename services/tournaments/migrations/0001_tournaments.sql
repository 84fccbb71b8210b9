-- The tournament service's state, in a schema of its own ("tournaments") in the
-- platform's PostgreSQL database: one row per tournament, its whole state one JSON
-- document (players, rounds, tables, results, prizes) changed only by compare-and-set
-- on `version` (services/tournaments/src/store.rs). Money is not here: entry fees and
-- prizes are transfers at the ledger, idempotent by request ids derived from the
-- tournament's id, so the document only says which of them are done.

CREATE TABLE tournaments (
    tournament_id  text COLLATE "C" PRIMARY KEY,
    -- The creating request's idempotency key, and the SHA-256 of its settings: a retry
    -- must carry the same settings.
    request_id     text COLLATE "C" NOT NULL UNIQUE,
    request_sha256 bytea NOT NULL CHECK (length(request_sha256) = 32),
    -- The API's State and GameType codes, kept beside the document for listing.
    state          smallint NOT NULL CHECK (state BETWEEN 1 AND 4),
    game_type      smallint NOT NULL,
    created_at_ms  bigint NOT NULL,
    -- Increases with every change of the document.
    version        bigint NOT NULL CHECK (version >= 1),
    -- The director still has work here: a tournament not yet over, or a cancelled one
    -- whose refunds are not all done.
    needs_work     boolean NOT NULL DEFAULT true,
    doc            jsonb NOT NULL
);
CREATE INDEX tournaments_newest ON tournaments (created_at_ms DESC, tournament_id DESC);
CREATE INDEX tournaments_needing_work ON tournaments (tournament_id) WHERE needs_work;
