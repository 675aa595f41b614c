-- Groups are keyed by (workspace, group) (issue 11 finding 4): a group id of
-- one workspace never refers to, or blocks, a group of another on the same
-- relay. Every group-scoped table gains workspace_id, filled from the
-- group's row, and takes it into its key.

ALTER TABLE envelopes DISABLE TRIGGER envelopes_immutable;
ALTER TABLE envelopes DISABLE TRIGGER envelopes_bytes;

ALTER TABLE envelopes ADD COLUMN workspace_id bytea;
UPDATE envelopes e SET workspace_id = g.workspace_id FROM groups g WHERE g.id = e.group_id;
ALTER TABLE author_heads ADD COLUMN workspace_id bytea;
UPDATE author_heads a SET workspace_id = g.workspace_id FROM groups g WHERE g.id = a.group_id;
ALTER TABLE retention_keys ADD COLUMN workspace_id bytea;
UPDATE retention_keys r SET workspace_id = g.workspace_id FROM groups g WHERE g.id = r.group_id;
ALTER TABLE retention_policies ADD COLUMN workspace_id bytea;
UPDATE retention_policies p SET workspace_id = g.workspace_id FROM groups g WHERE g.id = p.group_id;
ALTER TABLE checkpoints ADD COLUMN workspace_id bytea;
UPDATE checkpoints c SET workspace_id = g.workspace_id FROM groups g WHERE g.id = c.group_id;
ALTER TABLE anchors ADD COLUMN workspace_id bytea;
UPDATE anchors a SET workspace_id = g.workspace_id FROM groups g WHERE g.id = a.group_id;

ALTER TABLE envelopes ENABLE TRIGGER envelopes_immutable;
ALTER TABLE envelopes ENABLE TRIGGER envelopes_bytes;

-- Dropping the groups key drops every foreign key onto it.
ALTER TABLE groups DROP CONSTRAINT groups_pkey CASCADE;
ALTER TABLE groups ADD PRIMARY KEY (workspace_id, id);

ALTER TABLE envelopes ALTER COLUMN workspace_id SET NOT NULL;
ALTER TABLE envelopes DROP CONSTRAINT envelopes_pkey;
ALTER TABLE envelopes ADD PRIMARY KEY (workspace_id, group_id, seq);
ALTER TABLE envelopes ADD FOREIGN KEY (workspace_id, group_id) REFERENCES groups (workspace_id, id);
DROP INDEX envelopes_by_author;
CREATE UNIQUE INDEX envelopes_by_author ON envelopes (workspace_id, group_id, author, ctr);
DROP INDEX envelopes_by_kind;
CREATE INDEX envelopes_by_kind ON envelopes (workspace_id, group_id, kind, seq);

ALTER TABLE author_heads ALTER COLUMN workspace_id SET NOT NULL;
ALTER TABLE author_heads DROP CONSTRAINT author_heads_pkey;
ALTER TABLE author_heads ADD PRIMARY KEY (workspace_id, group_id, author);
ALTER TABLE author_heads ADD FOREIGN KEY (workspace_id, group_id) REFERENCES groups (workspace_id, id);

ALTER TABLE retention_keys ALTER COLUMN workspace_id SET NOT NULL;
ALTER TABLE retention_keys DROP CONSTRAINT retention_keys_pkey;
ALTER TABLE retention_keys ADD PRIMARY KEY (workspace_id, group_id, key);
ALTER TABLE retention_keys ADD FOREIGN KEY (workspace_id, group_id) REFERENCES groups (workspace_id, id);
DROP INDEX retention_keys_prev;
CREATE INDEX retention_keys_prev ON retention_keys (workspace_id, group_id, prev_key);

ALTER TABLE retention_policies ALTER COLUMN workspace_id SET NOT NULL;
ALTER TABLE retention_policies DROP CONSTRAINT retention_policies_pkey;
ALTER TABLE retention_policies ADD PRIMARY KEY (workspace_id, group_id, version);
ALTER TABLE retention_policies ADD FOREIGN KEY (workspace_id, group_id) REFERENCES groups (workspace_id, id);

ALTER TABLE checkpoints ALTER COLUMN workspace_id SET NOT NULL;
ALTER TABLE checkpoints DROP CONSTRAINT checkpoints_pkey;
ALTER TABLE checkpoints ADD PRIMARY KEY (workspace_id, group_id, seq);
ALTER TABLE checkpoints ADD FOREIGN KEY (workspace_id, group_id) REFERENCES groups (workspace_id, id);

ALTER TABLE anchors ALTER COLUMN workspace_id SET NOT NULL;
ALTER TABLE anchors DROP CONSTRAINT anchors_pkey;
ALTER TABLE anchors ADD PRIMARY KEY (workspace_id, group_id, seq);
ALTER TABLE anchors ADD FOREIGN KEY (workspace_id, group_id) REFERENCES groups (workspace_id, id);

-- The byte budget: each row names its workspace.
CREATE OR REPLACE FUNCTION envelopes_bytes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE workspaces SET log_bytes = log_bytes + octet_length(NEW.ct), log_changes = log_changes + 1
         WHERE id = NEW.workspace_id;
        RETURN NEW;
    END IF;
    UPDATE workspaces SET log_bytes = log_bytes - octet_length(OLD.ct), log_changes = log_changes + 1
     WHERE id = OLD.workspace_id;
    RETURN OLD;
END
$$;

DROP TRIGGER groups_workspace_fixed ON groups;
CREATE TRIGGER groups_workspace_fixed BEFORE UPDATE OF workspace_id, id ON groups
    FOR EACH ROW WHEN (NEW.workspace_id IS DISTINCT FROM OLD.workspace_id OR NEW.id IS DISTINCT FROM OLD.id)
    EXECUTE FUNCTION refuse_change('a group never changes workspace or id');

-- The fast send's gate (0005), reading each group of the workspace.
CREATE OR REPLACE FUNCTION weald_send_gate(p_ws bytea, p_version bigint, p_max_log bigint, p_total bigint,
        p_groups bytea[], p_firsts bigint[], p_channel text, p_payloads text[])
    RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    n integer;
BEGIN
    PERFORM 1 FROM workspaces w
      WHERE w.id = p_ws AND w.access_version = p_version AND (p_max_log = 0 OR w.log_bytes + p_total <= p_max_log)
      FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'fast send gate: workspace' USING ERRCODE = 'WG001';
    END IF;
    SELECT count(*) INTO n FROM unnest(p_groups, p_firsts) AS x (id, first)
      WHERE (SELECT gr.dropped_below FROM groups gr WHERE gr.workspace_id = p_ws AND gr.id = x.id FOR SHARE) < x.first
        AND (x.first = 1 OR EXISTS (SELECT 1 FROM envelopes e
              WHERE e.workspace_id = p_ws AND e.group_id = x.id AND e.seq = x.first - 1));
    IF n <> coalesce(cardinality(p_groups), 0) THEN
        RAISE EXCEPTION 'fast send gate: group head' USING ERRCODE = 'WG001';
    END IF;
    PERFORM pg_notify(p_channel, p) FROM unnest(p_payloads) AS p;
END
$$;
