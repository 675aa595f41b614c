-- The recovery tag directory (docs/protocol/lifecycle.md "Recovery tag
-- directory"): per recovery principal (owner: its key id) and group, the
-- recovery.wrap a device of the owner's user named last (cur_*) and the one
-- it replaced (fb_*; fb_seq 0: none). Epoch and tag are the wrap's, read
-- from its ct. Rows go only on a signed RECOVERY_DIR_DROP, kept in
-- recovery_dir_drops.
CREATE TABLE recovery_dir (
    workspace_id BLOB NOT NULL,
    owner        BLOB NOT NULL,
    group_id     BLOB NOT NULL,
    cur_seq      INTEGER NOT NULL,
    cur_epoch    INTEGER NOT NULL,
    cur_tag      BLOB NOT NULL,
    fb_seq       INTEGER NOT NULL,
    fb_epoch     INTEGER NOT NULL,
    fb_tag       BLOB NOT NULL,
    PRIMARY KEY (workspace_id, owner, group_id),
    FOREIGN KEY (workspace_id) REFERENCES workspaces (id)
) STRICT, WITHOUT ROWID;

CREATE TABLE recovery_dir_drops (
    workspace_id BLOB NOT NULL,
    hash         BLOB NOT NULL, -- SHA-256 of body
    body         BLOB NOT NULL, -- the signed RecoveryDirDrop
    PRIMARY KEY (workspace_id, hash),
    FOREIGN KEY (workspace_id) REFERENCES workspaces (id)
) STRICT, WITHOUT ROWID;
