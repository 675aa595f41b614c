-- A grant carries at most one key: the first that authenticated with it
-- (grant_hash now holds the invite's grant key, docs/protocol/invites.md).
-- Bindings past the first, which earlier relays made, are dropped; those
-- devices connect with their own key once an access set lists them.
DELETE FROM grant_keys a USING grant_keys b
 WHERE a.workspace_id = b.workspace_id AND a.grant_hash = b.grant_hash AND a.ctid > b.ctid;
CREATE UNIQUE INDEX grant_keys_one_key ON grant_keys (workspace_id, grant_hash);
