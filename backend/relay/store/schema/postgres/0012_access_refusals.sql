-- Access-set publications the relay refused because their signer, a device
-- of the roster, holds no admin authority there (a recovered device on
-- probation: spec/lifecycle.md "Detection", an attempted takeover). The
-- newest 64 per workspace are kept and served to clients (ACCESS_REFUSALS).
CREATE TABLE access_refusals (
    workspace_id bytea NOT NULL,
    id           bigint NOT NULL, -- 1, 2, 3, … per workspace
    at           bigint NOT NULL, -- unix seconds
    body         bytea NOT NULL,    -- the AccessSet as sent
    PRIMARY KEY (workspace_id, id),
    FOREIGN KEY (workspace_id) REFERENCES workspaces (id)
);
