-- Provisioning tokens (docs/protocol/wire.md "Provisioning"): a relay in
-- token mode lets whoever holds a token provision a workspace without its
-- operator, at most uses_left more times and until expires_at. Only the
-- SHA-256 of a token is stored.
CREATE TABLE provision_tokens (
    hash       bytea PRIMARY KEY CHECK (length(hash) = 32),
    uses_left  bigint NOT NULL CHECK (uses_left >= 0),
    expires_at bigint NOT NULL, -- unix seconds; 0 = never
    created_at bigint NOT NULL
);
