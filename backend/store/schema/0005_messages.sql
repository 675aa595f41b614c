-- 0005: the message index (docs/protocol/store.md "Message index"): one row
-- per message of the chat shards, sealed, for paging a channel's history
-- without loading its day shards, and a full-text index of blinded terms
-- (keyed hashes of the words, never the words) for search.
CREATE TABLE messages (
    rowid    INTEGER PRIMARY KEY,
    group_id BLOB    NOT NULL CHECK (length(group_id) = 32),
    day      INTEGER NOT NULL CHECK (day >= 0),
    epoch    INTEGER NOT NULL,
    msg_id   BLOB    NOT NULL CHECK (length(msg_id) = 16),
    time_ms  INTEGER NOT NULL,
    sealed   BLOB    NOT NULL,
    UNIQUE (group_id, day, epoch, msg_id)
) STRICT;
CREATE INDEX messages_by_time ON messages (group_id, time_ms, msg_id);
CREATE INDEX messages_by_id ON messages (group_id, msg_id);

-- Blinded terms of each message's text, rowid = messages.rowid.
CREATE VIRTUAL TABLE message_terms USING fts5 (terms, content = '', contentless_delete = 1, tokenize = 'ascii');

-- Set once the engine has indexed the shards stored before this migration.
CREATE TABLE message_index_state (
    singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
    built     INTEGER NOT NULL
) STRICT;
