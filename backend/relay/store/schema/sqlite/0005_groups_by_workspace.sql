-- Groups are keyed by (workspace, group) (issue 11 finding 4): a group id of
-- one workspace never refers to, or blocks, a group of another on the same
-- relay. Every group-scoped table gains workspace_id, filled from the
-- group's row, and takes it into its key. SQLite cannot change a primary
-- key in place, so each table is rebuilt: new tables, copied rows, the old
-- ones dropped (children first, triggers before), then renamed.

DROP TRIGGER envelopes_bytes_insert;
DROP TRIGGER envelopes_bytes_delete;
DROP TRIGGER envelopes_immutable;
DROP TRIGGER groups_workspace_fixed;

CREATE TABLE groups_new (
    workspace_id     BLOB NOT NULL REFERENCES workspaces(id),
    id               BLOB NOT NULL,
    dropped_below    INTEGER NOT NULL DEFAULT 0,
    retention_frozen INTEGER NOT NULL DEFAULT 0,
    created_at       INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, id)
) STRICT;
INSERT INTO groups_new (workspace_id, id, dropped_below, retention_frozen, created_at)
    SELECT workspace_id, id, dropped_below, retention_frozen, created_at FROM groups;

CREATE TABLE envelopes_new (
    workspace_id BLOB NOT NULL,
    group_id     BLOB NOT NULL,
    seq          INTEGER NOT NULL,
    author       BLOB NOT NULL,
    ctr          INTEGER NOT NULL,
    prev         BLOB NOT NULL,
    hash         BLOB NOT NULL,
    kind         INTEGER NOT NULL,
    ct           BLOB NOT NULL,
    sig          BLOB NOT NULL,
    accepted_at  INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, group_id, seq),
    FOREIGN KEY (workspace_id, group_id) REFERENCES groups_new (workspace_id, id)
) STRICT, WITHOUT ROWID;
INSERT INTO envelopes_new SELECT g.workspace_id, e.group_id, e.seq, e.author, e.ctr, e.prev, e.hash, e.kind, e.ct, e.sig, e.accepted_at
    FROM envelopes e JOIN groups g ON g.id = e.group_id;

CREATE TABLE author_heads_new (
    workspace_id BLOB NOT NULL,
    group_id     BLOB NOT NULL,
    author       BLOB NOT NULL,
    ctr          INTEGER NOT NULL,
    hash         BLOB NOT NULL,
    PRIMARY KEY (workspace_id, group_id, author),
    FOREIGN KEY (workspace_id, group_id) REFERENCES groups_new (workspace_id, id)
) STRICT, WITHOUT ROWID;
INSERT INTO author_heads_new SELECT g.workspace_id, a.group_id, a.author, a.ctr, a.hash
    FROM author_heads a JOIN groups g ON g.id = a.group_id;

CREATE TABLE retention_keys_new (
    workspace_id BLOB NOT NULL,
    group_id     BLOB NOT NULL,
    key          BLOB NOT NULL,
    prev_key     BLOB NOT NULL, -- empty for the chain root
    epoch        INTEGER NOT NULL,
    seq          INTEGER NOT NULL,
    dead         INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (workspace_id, group_id, key),
    FOREIGN KEY (workspace_id, group_id) REFERENCES groups_new (workspace_id, id)
) STRICT;
INSERT INTO retention_keys_new SELECT g.workspace_id, r.group_id, r.key, r.prev_key, r.epoch, r.seq, r.dead
    FROM retention_keys r JOIN groups g ON g.id = r.group_id;

CREATE TABLE retention_policies_new (
    workspace_id      BLOB NOT NULL,
    group_id          BLOB NOT NULL,
    version           INTEGER NOT NULL,
    seq               INTEGER NOT NULL,
    author            BLOB NOT NULL,
    ctr               INTEGER NOT NULL,
    hash              BLOB NOT NULL,
    text_window_days  INTEGER NOT NULL,
    media_window_days INTEGER NOT NULL,
    body              BLOB NOT NULL,
    PRIMARY KEY (workspace_id, group_id, version),
    FOREIGN KEY (workspace_id, group_id) REFERENCES groups_new (workspace_id, id)
) STRICT;
INSERT INTO retention_policies_new SELECT g.workspace_id, p.group_id, p.version, p.seq, p.author, p.ctr, p.hash,
        p.text_window_days, p.media_window_days, p.body
    FROM retention_policies p JOIN groups g ON g.id = p.group_id;

CREATE TABLE checkpoints_new (
    workspace_id  BLOB NOT NULL,
    group_id      BLOB NOT NULL,
    seq           INTEGER NOT NULL,
    author        BLOB NOT NULL,
    ctr           INTEGER NOT NULL,
    hash          BLOB NOT NULL,
    manifest_hash BLOB NOT NULL,
    retention_key BLOB NOT NULL,
    PRIMARY KEY (workspace_id, group_id, seq),
    FOREIGN KEY (workspace_id, group_id) REFERENCES groups_new (workspace_id, id)
) STRICT;
INSERT INTO checkpoints_new SELECT g.workspace_id, c.group_id, c.seq, c.author, c.ctr, c.hash, c.manifest_hash, c.retention_key
    FROM checkpoints c JOIN groups g ON g.id = c.group_id;

CREATE TABLE anchors_new (
    workspace_id BLOB NOT NULL,
    group_id     BLOB NOT NULL,
    seq          INTEGER NOT NULL,
    PRIMARY KEY (workspace_id, group_id, seq),
    FOREIGN KEY (workspace_id, group_id) REFERENCES groups_new (workspace_id, id)
) STRICT;
INSERT INTO anchors_new SELECT g.workspace_id, a.group_id, a.seq FROM anchors a JOIN groups g ON g.id = a.group_id;

DROP TABLE anchors;
DROP TABLE checkpoints;
DROP TABLE retention_policies;
DROP TABLE retention_keys;
DROP TABLE author_heads;
DROP TABLE envelopes;
DROP TABLE groups;

ALTER TABLE groups_new RENAME TO groups;
ALTER TABLE envelopes_new RENAME TO envelopes;
ALTER TABLE author_heads_new RENAME TO author_heads;
ALTER TABLE retention_keys_new RENAME TO retention_keys;
ALTER TABLE retention_policies_new RENAME TO retention_policies;
ALTER TABLE checkpoints_new RENAME TO checkpoints;
ALTER TABLE anchors_new RENAME TO anchors;

CREATE UNIQUE INDEX envelopes_by_author ON envelopes (workspace_id, group_id, author, ctr);
CREATE INDEX envelopes_by_kind ON envelopes (workspace_id, group_id, kind, seq);
CREATE INDEX retention_keys_prev ON retention_keys (workspace_id, group_id, prev_key);

-- The byte budget (spec/lifecycle.md "The workspace byte budget"): each row
-- names its workspace.
CREATE TRIGGER envelopes_bytes_insert AFTER INSERT ON envelopes
BEGIN
    UPDATE workspaces SET log_bytes = log_bytes + length(NEW.ct) WHERE id = NEW.workspace_id;
END;

CREATE TRIGGER envelopes_bytes_delete AFTER DELETE ON envelopes
BEGIN
    UPDATE workspaces SET log_bytes = log_bytes - length(OLD.ct) WHERE id = OLD.workspace_id;
END;

CREATE TRIGGER envelopes_immutable BEFORE UPDATE ON envelopes
BEGIN
    SELECT RAISE(ABORT, 'envelopes are immutable');
END;

CREATE TRIGGER groups_workspace_fixed BEFORE UPDATE OF workspace_id, id ON groups
WHEN NEW.workspace_id IS NOT OLD.workspace_id OR NEW.id IS NOT OLD.id
BEGIN
    SELECT RAISE(ABORT, 'a group never changes workspace or id');
END;
