-- A multi-use invite's grant carries one key per use, up to the invite's
-- max_uses (docs/protocol/invites.md "Redemption"): each binding takes the
-- next slot, and (workspace, grant, slot) is unique, so two connections
-- racing for one slot cannot both win. Existing bindings are slot 0.
ALTER TABLE grant_keys ADD COLUMN slot INTEGER NOT NULL DEFAULT 0;
DROP INDEX grant_keys_one_key;
CREATE UNIQUE INDEX grant_keys_slot ON grant_keys (workspace_id, grant_hash, slot);
