-- 0006: the weekly health check (docs/protocol/health.md): one row per run,
-- the report sealed, and the relay's storage figures as the client read them
-- (STATS), sealed, for the storage chart. Both are kept bounded by the
-- engine (the newest rows only).
CREATE TABLE health_runs (
    at_ms  INTEGER PRIMARY KEY CHECK (at_ms >= 0),
    sealed BLOB NOT NULL
) STRICT;
CREATE TABLE storage_samples (
    at_ms  INTEGER PRIMARY KEY CHECK (at_ms >= 0),
    sealed BLOB NOT NULL
) STRICT;
