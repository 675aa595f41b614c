-- A FETCH accounts for every seq it passes over (docs/protocol/wire.md
-- "Gaps", issue 11 "withheld envelopes"): each recovery.wrap a WRAPS_DELETE
-- deleted leaves a tombstone naming the signed instruction, which is kept
-- so clients can check it. Tombstones below a drop barrier go with the drop.
CREATE TABLE wrap_deletions (
    workspace_id BLOB NOT NULL,
    group_id     BLOB NOT NULL,
    hash         BLOB NOT NULL, -- SHA-256 of body
    body         BLOB NOT NULL, -- the signed WrapsDelete
    PRIMARY KEY (workspace_id, group_id, hash),
    FOREIGN KEY (workspace_id, group_id) REFERENCES groups (workspace_id, id)
) STRICT, WITHOUT ROWID;

CREATE TABLE wrap_tombstones (
    workspace_id BLOB NOT NULL,
    group_id     BLOB NOT NULL,
    seq          INTEGER NOT NULL,
    tag          BLOB NOT NULL,
    deletion     BLOB NOT NULL, -- wrap_deletions.hash
    PRIMARY KEY (workspace_id, group_id, seq),
    FOREIGN KEY (workspace_id, group_id) REFERENCES groups (workspace_id, id)
) STRICT, WITHOUT ROWID;
