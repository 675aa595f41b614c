-- FETCH_LATEST looks up the newest envelope of a kind in a group.
CREATE INDEX envelopes_by_kind ON envelopes (group_id, kind, seq);
