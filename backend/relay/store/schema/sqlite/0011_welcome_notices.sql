-- Welcome notices (docs/protocol/wire.md "Welcome notices"): per added key,
-- the Welcome envelopes (group, seq) that add it, until the key clears them.
-- The newest 1024 per key are kept (wire.MaxWelcomesKept); id is 1, 2, 3, … per (workspace, owner).
CREATE TABLE welcome_notices (
    workspace_id BLOB NOT NULL,
    owner        BLOB NOT NULL,    -- key id of the added device or agent
    id           INTEGER NOT NULL,
    group_id     BLOB NOT NULL,
    seq          INTEGER NOT NULL, -- the mls.welcome envelope's seq
    at           INTEGER NOT NULL, -- unix seconds
    PRIMARY KEY (workspace_id, owner, id),
    UNIQUE (workspace_id, owner, group_id, seq),
    FOREIGN KEY (workspace_id) REFERENCES workspaces (id)
) STRICT, WITHOUT ROWID;
