-- 0002: one table per kind of engine state, every value sealed with the
-- database's key (docs/protocol/store.md "Encryption at rest"). The Go part
-- of this migration (moveKV, legacy.go) makes the key, records it in
-- sealing_key and moves each kv value to its table, sealed.

-- Which key seals this database's values, and where it is kept.
CREATE TABLE sealing_key (
    singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
    key_id    BLOB    NOT NULL CHECK (length(key_id) = 16),
    place     TEXT    NOT NULL CHECK (place IN ('keyring', 'file'))
) STRICT;

-- The engine's one-of-a-kind records by name (store.Record): the
-- workspace record, the security alerts.
CREATE TABLE records (
    name   TEXT PRIMARY KEY,
    sealed BLOB NOT NULL
) STRICT;

-- Each group's local state (MLS state, content keys, cursors).
CREATE TABLE groups (
    id     BLOB PRIMARY KEY CHECK (length(id) = 32),
    sealed BLOB NOT NULL
) STRICT;

-- The private halves of this device's unused key packages, by reference.
CREATE TABLE key_packages (
    ref    BLOB PRIMARY KEY,
    sealed BLOB NOT NULL
) STRICT;

-- Chat shards: a saved base document per (group, day, epoch) and the
-- changes applied since, in order.
CREATE TABLE shards (
    group_id BLOB    NOT NULL CHECK (length(group_id) = 32),
    day      INTEGER NOT NULL CHECK (day >= 0),
    epoch    INTEGER NOT NULL,
    sealed   BLOB    NOT NULL,
    PRIMARY KEY (group_id, day, epoch)
) STRICT;
CREATE TABLE shard_changes (
    group_id BLOB    NOT NULL CHECK (length(group_id) = 32),
    day      INTEGER NOT NULL CHECK (day >= 0),
    epoch    INTEGER NOT NULL,
    n        INTEGER NOT NULL CHECK (n >= 0),
    sealed   BLOB    NOT NULL,
    PRIMARY KEY (group_id, day, epoch, n)
) STRICT;

-- The validated roster operations in order (1 for the first applied). Not
-- sealed: signed, public to the workspace and held by the relay too.
CREATE TABLE roster_ops (
    idx   INTEGER PRIMARY KEY CHECK (idx >= 1),
    bytes BLOB    NOT NULL
) STRICT;
INSERT INTO roster_ops (idx, bytes) SELECT idx, op FROM roster;
