-- Weald relay schema, PostgreSQL. Ids and keys are 32-byte bytea, times Unix seconds.

CREATE TABLE workspaces (
    id               bytea PRIMARY KEY,
    genesis_key      bytea NOT NULL,
    genesis_consumed integer NOT NULL DEFAULT 0,
    access_version   bigint NOT NULL DEFAULT 0,
    roster_index     bigint NOT NULL DEFAULT 0,
    roster_head      bytea NOT NULL,
    log_bytes        bigint NOT NULL DEFAULT 0, -- maintained only by the envelope trigger
    created_at       bigint NOT NULL
);

CREATE TABLE groups (
    id               bytea PRIMARY KEY,
    workspace_id     bytea NOT NULL REFERENCES workspaces(id),
    dropped_below    bigint NOT NULL DEFAULT 0,
    retention_frozen integer NOT NULL DEFAULT 0,
    created_at       bigint NOT NULL
);

CREATE TABLE envelopes (
    group_id    bytea NOT NULL REFERENCES groups(id),
    seq         bigint NOT NULL,
    author      bytea NOT NULL,
    ctr         bigint NOT NULL,
    prev        bytea NOT NULL,
    hash        bytea NOT NULL,
    kind        integer NOT NULL,
    ct          bytea NOT NULL,
    sig         bytea NOT NULL,
    accepted_at bigint NOT NULL,
    PRIMARY KEY (group_id, seq)
);

CREATE UNIQUE INDEX envelopes_by_author ON envelopes (group_id, author, ctr);

-- An author chain's head is its newest envelope (by ctr) in the group; a
-- drop_before first copies every author's head here, so a chain whose newest
-- envelope went below the barrier still continues from it.
CREATE TABLE author_heads (
    group_id bytea NOT NULL REFERENCES groups(id),
    author   bytea NOT NULL,
    ctr      bigint NOT NULL,
    hash     bytea NOT NULL,
    PRIMARY KEY (group_id, author)
);

-- The byte budget (spec/lifecycle.md "The workspace byte budget"): the
-- workspace is resolved from the group's own row.
CREATE FUNCTION envelopes_bytes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE workspaces SET log_bytes = log_bytes + octet_length(NEW.ct)
         WHERE id = (SELECT workspace_id FROM groups WHERE id = NEW.group_id);
        RETURN NEW;
    END IF;
    UPDATE workspaces SET log_bytes = log_bytes - octet_length(OLD.ct)
     WHERE id = (SELECT workspace_id FROM groups WHERE id = OLD.group_id);
    RETURN OLD;
END
$$;

CREATE TRIGGER envelopes_bytes AFTER INSERT OR DELETE ON envelopes
    FOR EACH ROW EXECUTE FUNCTION envelopes_bytes();

-- An accepted envelope never changes, and a group never moves to another
-- workspace, so the counter cannot drift from the rows it describes.
CREATE FUNCTION refuse_change() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION '%', TG_ARGV[0];
END
$$;

CREATE TRIGGER envelopes_immutable BEFORE UPDATE ON envelopes
    FOR EACH ROW EXECUTE FUNCTION refuse_change('envelopes are immutable');

CREATE TRIGGER envelopes_no_truncate BEFORE TRUNCATE ON envelopes
    FOR EACH STATEMENT EXECUTE FUNCTION refuse_change('envelopes are never truncated');

CREATE TRIGGER groups_workspace_fixed BEFORE UPDATE OF workspace_id ON groups
    FOR EACH ROW WHEN (NEW.workspace_id IS DISTINCT FROM OLD.workspace_id)
    EXECUTE FUNCTION refuse_change('a group never changes workspace');

CREATE TABLE access_sets (
    workspace_id bytea NOT NULL REFERENCES workspaces(id),
    version      bigint NOT NULL,
    body         bytea NOT NULL,
    accepted_at  bigint NOT NULL,
    PRIMARY KEY (workspace_id, version)
);

-- Keys that were in an accepted set and left it (auth/revoked rather than auth/unknown_key).
CREATE TABLE departed_keys (
    workspace_id bytea NOT NULL REFERENCES workspaces(id),
    key_id       bytea NOT NULL,
    version      bigint NOT NULL,
    PRIMARY KEY (workspace_id, key_id)
);

CREATE TABLE grants (
    workspace_id bytea NOT NULL REFERENCES workspaces(id),
    hash         bytea NOT NULL,
    void         integer NOT NULL DEFAULT 0,
    since        bigint NOT NULL, -- access-set version that added (or voided) it
    PRIMARY KEY (workspace_id, hash)
);

-- The device key a grant connection answered the challenge with: the grant
-- carries that key until an access set lists it (design/gaps.md "Invites and bootstrap").
CREATE TABLE grant_keys (
    workspace_id bytea NOT NULL REFERENCES workspaces(id),
    key_id       bytea NOT NULL,
    key          bytea NOT NULL,
    grant_hash   bytea NOT NULL,
    PRIMARY KEY (workspace_id, key_id)
);

CREATE TABLE roster_ops (
    workspace_id bytea NOT NULL REFERENCES workspaces(id),
    idx          bigint NOT NULL,
    head         bytea NOT NULL,
    op           bytea NOT NULL,
    PRIMARY KEY (workspace_id, idx)
);

CREATE TABLE key_packages (
    id           bigserial PRIMARY KEY,
    workspace_id bytea NOT NULL REFERENCES workspaces(id),
    owner        bytea NOT NULL,
    body         bytea NOT NULL,
    last_resort  integer NOT NULL,
    created_at   bigint NOT NULL
);

CREATE INDEX key_packages_owner ON key_packages (workspace_id, owner, last_resort, id);
CREATE UNIQUE INDEX key_packages_one_last_resort ON key_packages (workspace_id, owner) WHERE last_resort = 1;

CREATE TABLE retention_keys (
    group_id bytea NOT NULL REFERENCES groups(id),
    key      bytea NOT NULL,
    prev_key bytea NOT NULL, -- empty for the chain root
    epoch    bigint NOT NULL,
    seq      bigint NOT NULL,
    PRIMARY KEY (group_id, key)
);

CREATE INDEX retention_keys_prev ON retention_keys (group_id, prev_key);

CREATE TABLE retention_policies (
    group_id          bytea NOT NULL REFERENCES groups(id),
    version           bigint NOT NULL,
    seq               bigint NOT NULL,
    author            bytea NOT NULL,
    ctr               bigint NOT NULL,
    hash              bytea NOT NULL,
    text_window_days  bigint NOT NULL,
    media_window_days bigint NOT NULL,
    body              bytea NOT NULL,
    PRIMARY KEY (group_id, version)
);

CREATE TABLE checkpoints (
    group_id      bytea NOT NULL REFERENCES groups(id),
    seq           bigint NOT NULL,
    author        bytea NOT NULL,
    ctr           bigint NOT NULL,
    hash          bytea NOT NULL,
    manifest_hash bytea NOT NULL,
    retention_key bytea NOT NULL,
    PRIMARY KEY (group_id, seq)
);

-- Envelopes a drop_before kept as anchors: its checkpoint and snapshots.
CREATE TABLE anchors (
    group_id bytea NOT NULL REFERENCES groups(id),
    seq      bigint NOT NULL,
    PRIMARY KEY (group_id, seq)
);
