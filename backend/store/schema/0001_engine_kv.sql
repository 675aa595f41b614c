-- 0001: the engine's first schema, exactly as state.db files written before
-- the store owned them hold it (engine/store.go up to this migration), so
-- such a file opens as version 1 and is carried forward by the next ones.
-- kv: the workspace record and per-group, shard and key-package values by
-- string key; roster: the validated roster operations in order.
CREATE TABLE IF NOT EXISTS kv (k TEXT PRIMARY KEY, v BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS roster (idx INTEGER PRIMARY KEY, op BLOB NOT NULL);
