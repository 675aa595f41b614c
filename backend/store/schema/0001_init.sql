-- 0001: the tables one workspace's engine needs (docs/protocol/store.md).
-- Ids are 32-byte blobs; times are Unix milliseconds.

-- The one workspace this database belongs to (one database per workspace).
CREATE TABLE workspace (
    singleton      INTEGER PRIMARY KEY CHECK (singleton = 1),
    id             BLOB    NOT NULL CHECK (length(id) = 32),
    name           TEXT    NOT NULL,
    relay_url      TEXT    NOT NULL,
    user_id        BLOB    CHECK (user_id IS NULL OR length(user_id) = 32),
    self_kind      TEXT    NOT NULL CHECK (self_kind IN ('device', 'agent')),
    self_id        BLOB    NOT NULL CHECK (length(self_id) = 32),
    recovery_id    BLOB    CHECK (recovery_id IS NULL OR length(recovery_id) = 32),
    bootstrap_step INTEGER NOT NULL DEFAULT 0 CHECK (bootstrap_step >= 0),
    ready          INTEGER NOT NULL DEFAULT 0 CHECK (ready IN (0, 1))
) STRICT;

-- Private key material, as sealed bytes, by kind and key id.
CREATE TABLE keys (
    kind   TEXT NOT NULL,
    key_id BLOB NOT NULL,
    sealed BLOB NOT NULL,
    PRIMARY KEY (kind, key_id)
) STRICT;

-- The validated roster chain: operation idx (0-based), its bytes and
-- SHA-256. The head is the hash of the last row.
CREATE TABLE roster_ops (
    idx   INTEGER PRIMARY KEY CHECK (idx >= 0),
    bytes BLOB    NOT NULL,
    hash  BLOB    NOT NULL UNIQUE CHECK (length(hash) = 32)
) STRICT;

-- Groups this client knows of (a GroupPolicy in the roster or a DM).
CREATE TABLE groups (
    id          BLOB    PRIMARY KEY CHECK (length(id) = 32),
    kind        TEXT    NOT NULL CHECK (kind IN ('root', 'channel', 'dm')),
    policy_hash BLOB    CHECK (policy_hash IS NULL OR length(policy_hash) = 32),
    name        TEXT    NOT NULL,
    muted       INTEGER NOT NULL DEFAULT 0 CHECK (muted IN (0, 1)),
    sort_order  INTEGER NOT NULL DEFAULT 0,
    joined      INTEGER NOT NULL DEFAULT 0 CHECK (joined IN (0, 1)),
    mls_state   BLOB,
    epoch       INTEGER NOT NULL DEFAULT 0 CHECK (epoch >= 0),
    fetched_seq INTEGER NOT NULL DEFAULT 0 CHECK (fetched_seq >= 0)
) STRICT;

-- Envelopes received from the relay, by group and relay seq.
CREATE TABLE envelopes (
    group_id  BLOB    NOT NULL REFERENCES groups (id) ON DELETE CASCADE,
    seq       INTEGER NOT NULL CHECK (seq > 0),
    author    BLOB    NOT NULL CHECK (length(author) = 32),
    ctr       INTEGER NOT NULL CHECK (ctr > 0),
    hash      BLOB    NOT NULL CHECK (length(hash) = 32),
    kind      INTEGER NOT NULL,
    bytes     BLOB    NOT NULL,
    processed INTEGER NOT NULL DEFAULT 0 CHECK (processed IN (0, 1)),
    PRIMARY KEY (group_id, seq),
    UNIQUE (group_id, author, ctr)
) STRICT;
CREATE INDEX envelopes_unprocessed ON envelopes (group_id, seq) WHERE processed = 0;

-- Per-author chain heads: the newest verified (ctr, hash) of each author in
-- each group, from received envelopes or from a trusted checkpoint.
CREATE TABLE chain_heads (
    group_id BLOB    NOT NULL REFERENCES groups (id) ON DELETE CASCADE,
    author   BLOB    NOT NULL CHECK (length(author) = 32),
    ctr      INTEGER NOT NULL CHECK (ctr > 0),
    hash     BLOB    NOT NULL CHECK (length(hash) = 32),
    PRIMARY KEY (group_id, author)
) STRICT;

-- Content keys: history keys of open groups (valid from from_epoch on) and
-- per-epoch keys of closed groups (valid for from_epoch only).
CREATE TABLE history_keys (
    group_id   BLOB    NOT NULL REFERENCES groups (id) ON DELETE CASCADE,
    key_id     BLOB    NOT NULL,
    scope      TEXT    NOT NULL CHECK (scope IN ('history', 'epoch')),
    key        BLOB    NOT NULL,
    from_epoch INTEGER NOT NULL CHECK (from_epoch >= 0),
    PRIMARY KEY (group_id, key_id)
) STRICT;

-- Envelopes written but not yet accepted by the relay, oldest first.
CREATE TABLE outbox (
    id              INTEGER PRIMARY KEY AUTOINCREMENT,
    group_id        BLOB    NOT NULL REFERENCES groups (id) ON DELETE CASCADE,
    idempotency_key BLOB    NOT NULL UNIQUE,
    kind            INTEGER NOT NULL,
    author          BLOB    NOT NULL CHECK (length(author) = 32),
    ctr             INTEGER NOT NULL CHECK (ctr > 0),
    hash            BLOB    NOT NULL CHECK (length(hash) = 32),
    envelope        BLOB    NOT NULL,
    attempts        INTEGER NOT NULL DEFAULT 0,
    last_error      TEXT    NOT NULL DEFAULT '',
    UNIQUE (group_id, author, ctr)
) STRICT;

-- Automerge documents: saved bytes, held out-of-order changes, heads, and
-- the heads at the last sync point (what has been sent).
CREATE TABLE documents (
    id         BLOB    PRIMARY KEY CHECK (length(id) = 32),
    group_id   BLOB    NOT NULL REFERENCES groups (id) ON DELETE CASCADE,
    kind       INTEGER NOT NULL,
    day        INTEGER NOT NULL DEFAULT 0,
    saved      BLOB    NOT NULL,
    pending    BLOB    NOT NULL DEFAULT x'',
    heads      BLOB    NOT NULL DEFAULT x'',
    sent_heads BLOB    NOT NULL DEFAULT x''
) STRICT;
CREATE INDEX documents_group ON documents (group_id, kind, day);
