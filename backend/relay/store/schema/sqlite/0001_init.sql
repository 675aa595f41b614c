-- Weald relay schema, SQLite. Ids and keys are 32-byte BLOBs, times Unix seconds.

CREATE TABLE workspaces (
    id               BLOB PRIMARY KEY,
    genesis_key      BLOB NOT NULL,
    genesis_consumed INTEGER NOT NULL DEFAULT 0,
    access_version   INTEGER NOT NULL DEFAULT 0,
    roster_index     INTEGER NOT NULL DEFAULT 0,
    roster_head      BLOB NOT NULL,
    log_bytes        INTEGER NOT NULL DEFAULT 0, -- maintained only by the envelope triggers
    created_at       INTEGER NOT NULL
) STRICT;

CREATE TABLE groups (
    id               BLOB PRIMARY KEY,
    workspace_id     BLOB NOT NULL REFERENCES workspaces(id),
    dropped_below    INTEGER NOT NULL DEFAULT 0,
    retention_frozen INTEGER NOT NULL DEFAULT 0,
    created_at       INTEGER NOT NULL
) STRICT;

CREATE TABLE envelopes (
    group_id    BLOB NOT NULL REFERENCES groups(id),
    seq         INTEGER NOT NULL,
    author      BLOB NOT NULL,
    ctr         INTEGER NOT NULL,
    prev        BLOB NOT NULL,
    hash        BLOB NOT NULL,
    kind        INTEGER NOT NULL,
    ct          BLOB NOT NULL,
    sig         BLOB NOT NULL,
    accepted_at INTEGER NOT NULL,
    PRIMARY KEY (group_id, seq)
) STRICT, WITHOUT ROWID;

CREATE UNIQUE INDEX envelopes_by_author ON envelopes (group_id, author, ctr);

-- An author chain's head is its newest envelope (by ctr) in the group; a
-- drop_before first copies every author's head here, so a chain whose newest
-- envelope went below the barrier still continues from it.
CREATE TABLE author_heads (
    group_id BLOB NOT NULL REFERENCES groups(id),
    author   BLOB NOT NULL,
    ctr      INTEGER NOT NULL,
    hash     BLOB NOT NULL,
    PRIMARY KEY (group_id, author)
) STRICT, WITHOUT ROWID;

-- The byte budget (spec/lifecycle.md "The workspace byte budget"): the
-- workspace is resolved from the group's own row.
CREATE TRIGGER envelopes_bytes_insert AFTER INSERT ON envelopes
BEGIN
    UPDATE workspaces SET log_bytes = log_bytes + length(NEW.ct)
     WHERE id = (SELECT workspace_id FROM groups WHERE id = NEW.group_id);
END;

CREATE TRIGGER envelopes_bytes_delete AFTER DELETE ON envelopes
BEGIN
    UPDATE workspaces SET log_bytes = log_bytes - length(OLD.ct)
     WHERE id = (SELECT workspace_id FROM groups WHERE id = OLD.group_id);
END;

-- An accepted envelope never changes, and a group never moves to another
-- workspace, so the counter cannot drift from the rows it describes.
CREATE TRIGGER envelopes_immutable BEFORE UPDATE ON envelopes
BEGIN
    SELECT RAISE(ABORT, 'envelopes are immutable');
END;

CREATE TRIGGER groups_workspace_fixed BEFORE UPDATE OF workspace_id ON groups
WHEN NEW.workspace_id IS NOT OLD.workspace_id
BEGIN
    SELECT RAISE(ABORT, 'a group never changes workspace');
END;

CREATE TABLE access_sets (
    workspace_id BLOB NOT NULL REFERENCES workspaces(id),
    version      INTEGER NOT NULL,
    body         BLOB NOT NULL,
    accepted_at  INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, version)
) STRICT;

-- Keys that were in an accepted set and left it (auth/revoked rather than auth/unknown_key).
CREATE TABLE departed_keys (
    workspace_id BLOB NOT NULL REFERENCES workspaces(id),
    key_id       BLOB NOT NULL,
    version      INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, key_id)
) STRICT;

CREATE TABLE grants (
    workspace_id BLOB NOT NULL REFERENCES workspaces(id),
    hash         BLOB NOT NULL,
    void         INTEGER NOT NULL DEFAULT 0,
    since        INTEGER NOT NULL, -- access-set version that added (or voided) it
    PRIMARY KEY (workspace_id, hash)
) STRICT;

-- The device key a grant connection answered the challenge with: the grant
-- carries that key until an access set lists it (design/gaps.md "Invites and bootstrap").
CREATE TABLE grant_keys (
    workspace_id BLOB NOT NULL REFERENCES workspaces(id),
    key_id       BLOB NOT NULL,
    key          BLOB NOT NULL,
    grant_hash   BLOB NOT NULL,
    PRIMARY KEY (workspace_id, key_id)
) STRICT;

CREATE TABLE roster_ops (
    workspace_id BLOB NOT NULL REFERENCES workspaces(id),
    idx          INTEGER NOT NULL,
    head         BLOB NOT NULL,
    op           BLOB NOT NULL,
    PRIMARY KEY (workspace_id, idx)
) STRICT;

CREATE TABLE key_packages (
    id           INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id BLOB NOT NULL REFERENCES workspaces(id),
    owner        BLOB NOT NULL,
    body         BLOB NOT NULL,
    last_resort  INTEGER NOT NULL,
    created_at   INTEGER NOT NULL
) STRICT;

CREATE INDEX key_packages_owner ON key_packages (workspace_id, owner, last_resort, id);
CREATE UNIQUE INDEX key_packages_one_last_resort ON key_packages (workspace_id, owner) WHERE last_resort = 1;

CREATE TABLE retention_keys (
    group_id BLOB NOT NULL REFERENCES groups(id),
    key      BLOB NOT NULL,
    prev_key BLOB NOT NULL, -- empty for the chain root
    epoch    INTEGER NOT NULL,
    seq      INTEGER NOT NULL,
    PRIMARY KEY (group_id, key)
) STRICT;

CREATE INDEX retention_keys_prev ON retention_keys (group_id, prev_key);

CREATE TABLE retention_policies (
    group_id          BLOB NOT NULL REFERENCES groups(id),
    version           INTEGER NOT NULL,
    seq               INTEGER NOT NULL,
    author            BLOB NOT NULL,
    ctr               INTEGER NOT NULL,
    hash              BLOB NOT NULL,
    text_window_days  INTEGER NOT NULL,
    media_window_days INTEGER NOT NULL,
    body              BLOB NOT NULL,
    PRIMARY KEY (group_id, version)
) STRICT;

CREATE TABLE checkpoints (
    group_id      BLOB NOT NULL REFERENCES groups(id),
    seq           INTEGER NOT NULL,
    author        BLOB NOT NULL,
    ctr           INTEGER NOT NULL,
    hash          BLOB NOT NULL,
    manifest_hash BLOB NOT NULL,
    retention_key BLOB NOT NULL,
    PRIMARY KEY (group_id, seq)
) STRICT;

-- Envelopes a drop_before kept as anchors: its checkpoint and snapshots.
CREATE TABLE anchors (
    group_id BLOB NOT NULL REFERENCES groups(id),
    seq      INTEGER NOT NULL,
    PRIMARY KEY (group_id, seq)
) STRICT;
