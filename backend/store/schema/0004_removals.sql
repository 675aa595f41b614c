-- 0004: durable removal operations (spec/lifecycle.md "Removing a person"):
-- one row per RemovalOperation, written before its first step and updated
-- after each, so a crash resumes the same operation.
CREATE TABLE removals (
    id     BLOB PRIMARY KEY CHECK (length(id) = 32),
    sealed BLOB NOT NULL
) STRICT;
