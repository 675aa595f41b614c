-- A RetentionResolution discards the branches of a frozen chain it did not choose.
ALTER TABLE retention_keys ADD COLUMN dead INTEGER NOT NULL DEFAULT 0;
