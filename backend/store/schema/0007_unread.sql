-- 0007: unread counts kept per channel (docs/protocol/store.md "Unread
-- counts"), so listing channels reads one row per channel instead of every
-- message. `counted` is a message's sealed flags (written by someone else,
-- mentions this user); NULL for a row indexed before this migration, which
-- the engine indexes again (message_index_state reset) to fill it.
ALTER TABLE messages ADD COLUMN counted BLOB;

-- Per group: the read marker (Unix ms: messages at or before it are read)
-- and the messages by others after it, and those of them mentioning you.
CREATE TABLE channel_reads (
    group_id BLOB    PRIMARY KEY CHECK (length(group_id) = 32),
    read_ms  INTEGER NOT NULL DEFAULT 0,
    unread   INTEGER NOT NULL DEFAULT 0 CHECK (unread >= 0),
    mentions INTEGER NOT NULL DEFAULT 0 CHECK (mentions >= 0)
) STRICT;

UPDATE message_index_state SET built = 0;
