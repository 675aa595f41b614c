-- log_changes counts every change the envelope trigger makes to a workspace
-- row. A SEND compares the locked row's value with the one its statement's
-- snapshot saw: equal means the heads it read in the same statement are
-- current (no envelope of the workspace committed in between).
ALTER TABLE workspaces ADD COLUMN log_changes bigint NOT NULL DEFAULT 0;

CREATE OR REPLACE FUNCTION envelopes_bytes() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP = 'INSERT' THEN
        UPDATE workspaces SET log_bytes = log_bytes + octet_length(NEW.ct), log_changes = log_changes + 1
         WHERE id = (SELECT workspace_id FROM groups WHERE id = NEW.group_id);
        RETURN NEW;
    END IF;
    UPDATE workspaces SET log_bytes = log_bytes - octet_length(OLD.ct), log_changes = log_changes + 1
     WHERE id = (SELECT workspace_id FROM groups WHERE id = OLD.group_id);
    RETURN OLD;
END
$$;
