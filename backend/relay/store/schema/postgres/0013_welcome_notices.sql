-- Welcome notices (docs/protocol/wire.md "Welcome notices"): per added key,
-- the Welcome envelopes (group, seq) that add it, until the key clears them.
-- The newest 1024 per key are kept (wire.MaxWelcomesKept); id is 1, 2, 3, … per (workspace, owner).
CREATE TABLE welcome_notices (
    workspace_id bytea NOT NULL,
    owner        bytea NOT NULL,   -- key id of the added device or agent
    id           bigint NOT NULL,
    group_id     bytea NOT NULL,
    seq          bigint NOT NULL,  -- the mls.welcome envelope's seq
    at           bigint NOT NULL,  -- unix seconds
    PRIMARY KEY (workspace_id, owner, id),
    UNIQUE (workspace_id, owner, group_id, seq),
    FOREIGN KEY (workspace_id) REFERENCES workspaces (id)
);
