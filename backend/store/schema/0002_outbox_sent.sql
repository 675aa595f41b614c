-- 0002: keep an outbox row after the relay accepted it, until the envelope
-- comes back in the received log, so that the author's next ctr is never
-- computed from a chain head that does not know about it yet.
ALTER TABLE outbox ADD COLUMN sent INTEGER NOT NULL DEFAULT 0 CHECK (sent IN (0, 1));
CREATE INDEX outbox_unsent ON outbox (id) WHERE sent = 0;
