-- Access-set publications the relay refused because their signer, a device
-- of the roster, holds no admin authority there (a recovered device on
-- probation: spec/lifecycle.md "Detection", an attempted takeover). The
-- newest 64 per workspace are kept and served to clients (ACCESS_REFUSALS).
CREATE TABLE access_refusals (
    workspace_id BLOB NOT NULL,
    id           INTEGER NOT NULL, -- 1, 2, 3, … per workspace
    at           INTEGER NOT NULL, -- unix seconds
    body         BLOB NOT NULL,    -- the AccessSet as sent
    PRIMARY KEY (workspace_id, id),
    FOREIGN KEY (workspace_id) REFERENCES workspaces (id)
) STRICT, WITHOUT ROWID;
