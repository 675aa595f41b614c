-- The recovery tag directory (docs/protocol/lifecycle.md "Recovery tag
-- directory"): per recovery principal (owner: its key id) and group, the
-- recovery.wrap a device of the owner's user named last (cur_*) and the one
-- it replaced (fb_*; fb_seq 0: none). Epoch and tag are the wrap's, read
-- from its ct. Rows go only on a signed RECOVERY_DIR_DROP, kept in
-- recovery_dir_drops.
CREATE TABLE recovery_dir (
    workspace_id bytea NOT NULL,
    owner        bytea NOT NULL,
    group_id     bytea NOT NULL,
    cur_seq      bigint NOT NULL,
    cur_epoch    bigint NOT NULL,
    cur_tag      bytea NOT NULL,
    fb_seq       bigint NOT NULL,
    fb_epoch     bigint NOT NULL,
    fb_tag       bytea NOT NULL,
    PRIMARY KEY (workspace_id, owner, group_id),
    FOREIGN KEY (workspace_id) REFERENCES workspaces (id)
);

CREATE TABLE recovery_dir_drops (
    workspace_id bytea NOT NULL,
    hash         bytea NOT NULL, -- SHA-256 of body
    body         bytea NOT NULL, -- the signed RecoveryDirDrop
    PRIMARY KEY (workspace_id, hash),
    FOREIGN KEY (workspace_id) REFERENCES workspaces (id)
);
