-- weald_send_gate: the gate of a fast send (docs/protocol/wire.md "The fast
-- path"), for a batch the relay pipelines as BEGIN, this, and the plain bulk
-- insert, committing only after its signature check. It locks the workspace
-- row if the access-set version is the planned one and the batch fits the
-- budget, and for every group checks, under a share lock on its row, that no
-- drop_before went past the first planned seq and that the planned head
-- envelope exists; then it notifies the payloads (delivered on commit). If
-- anything does not hold it raises SQLSTATE WG001, which aborts the
-- transaction before the insert runs. Each statement here takes a fresh
-- snapshot, so what it reads after waiting for the lock is current.
CREATE FUNCTION weald_send_gate(p_ws bytea, p_version bigint, p_max_log bigint, p_total bigint,
        p_groups bytea[], p_firsts bigint[], p_channel text, p_payloads text[])
    RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    n integer;
BEGIN
    PERFORM 1 FROM workspaces w
      WHERE w.id = p_ws AND w.access_version = p_version AND (p_max_log = 0 OR w.log_bytes + p_total <= p_max_log)
      FOR UPDATE;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'fast send gate: workspace' USING ERRCODE = 'WG001';
    END IF;
    SELECT count(*) INTO n FROM unnest(p_groups, p_firsts) AS x (id, first)
      WHERE (SELECT gr.dropped_below FROM groups gr WHERE gr.id = x.id FOR SHARE) < x.first
        AND (x.first = 1 OR EXISTS (SELECT 1 FROM envelopes e WHERE e.group_id = x.id AND e.seq = x.first - 1));
    IF n <> coalesce(cardinality(p_groups), 0) THEN
        RAISE EXCEPTION 'fast send gate: group head' USING ERRCODE = 'WG001';
    END IF;
    PERFORM pg_notify(p_channel, p) FROM unnest(p_payloads) AS p;
END
$$;
