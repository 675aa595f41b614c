-- The relay's id: 32 random bytes chosen once (by the first relay process
-- that needs it), sent in every CHALLENGE and covered by every AUTH
-- signature, so an AUTH made for one relay answers no other
-- (docs/protocol/wire.md "Handshake"). One row.
CREATE TABLE relay_identity (
    singleton INTEGER PRIMARY KEY CHECK (singleton = 1),
    relay_id  BLOB NOT NULL CHECK (length(relay_id) = 32)
) STRICT;
