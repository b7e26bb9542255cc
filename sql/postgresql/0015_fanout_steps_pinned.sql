-- 0015_fanout_steps_pinned: one step of a publish's fan-out (0013) queued by a function
-- whose plan stays index probes from the step's range of subscriptions.
--
-- Sent as a plain statement, the step's INSERT … SELECT was planned from the whole table
-- of clients: the planner took the subscription probes for the publish's other interests
-- (an empty list, most often) to remove nearly every client, started from a sequential
-- scan of beams_clients, probed every client's device and subscriptions, and only then kept
-- the step's range. So every step read every client of the instance, and a fan-out's
-- queueing grew with the square of its size. Here, with hash and merge joins and sequential
-- scans off, the plan walks the interest's index (interest, client_id) over the step's range
-- only and reaches each client, device and subscription by its key. JIT is off: the
-- statement is many short probes. Two statements, as in 0013's Swift: with `p_through IS
-- NULL OR …` the range's upper end would be a filter over the rest of the interest rather
-- than a bound of the index scan.
--
-- Which devices a step queues is 0013's rule, unchanged: a device once over the whole
-- fan-out, for its first subscription in the fan-out's order. p_apps and p_earlier are JSON
-- arrays of app ids and of the publish's earlier interests. Returns the rows queued.
CREATE FUNCTION pushgate_enqueue_fanout_step(
    p_payload BIGINT, p_now BIGINT, p_interest TEXT, p_after TEXT, p_through TEXT, p_apps JSONB, p_earlier JSONB
) RETURNS BIGINT
LANGUAGE plpgsql
SET enable_hashjoin = off
SET enable_mergejoin = off
SET enable_seqscan = off
SET jit = off
AS $$
DECLARE
    v_queued BIGINT;
BEGIN
    IF p_through IS NULL THEN
        INSERT INTO outbox (payload_id, device_id, next_attempt_at, created_at)
        SELECT p_payload, c.device_id, p_now, p_now
        FROM beams_interests AS i JOIN beams_clients AS c ON c.id = i.client_id
        WHERE i.interest = p_interest AND i.client_id > p_after
            AND c.app_id IN (SELECT jsonb_array_elements_text(p_apps))
            AND NOT EXISTS (
                SELECT 1 FROM beams_interests AS e
                WHERE e.client_id = c.id AND e.interest IN (SELECT jsonb_array_elements_text(p_earlier)))
            AND NOT EXISTS (
                SELECT 1 FROM beams_clients AS o JOIN beams_interests AS s ON s.client_id = o.id
                WHERE o.device_id = c.device_id AND o.id <> c.id
                    AND ((s.interest = p_interest AND o.id < c.id)
                        OR s.interest IN (SELECT jsonb_array_elements_text(p_earlier))));
    ELSE
        INSERT INTO outbox (payload_id, device_id, next_attempt_at, created_at)
        SELECT p_payload, c.device_id, p_now, p_now
        FROM beams_interests AS i JOIN beams_clients AS c ON c.id = i.client_id
        WHERE i.interest = p_interest AND i.client_id > p_after AND i.client_id <= p_through
            AND c.app_id IN (SELECT jsonb_array_elements_text(p_apps))
            AND NOT EXISTS (
                SELECT 1 FROM beams_interests AS e
                WHERE e.client_id = c.id AND e.interest IN (SELECT jsonb_array_elements_text(p_earlier)))
            AND NOT EXISTS (
                SELECT 1 FROM beams_clients AS o JOIN beams_interests AS s ON s.client_id = o.id
                WHERE o.device_id = c.device_id AND o.id <> c.id
                    AND ((s.interest = p_interest AND o.id < c.id)
                        OR s.interest IN (SELECT jsonb_array_elements_text(p_earlier))));
    END IF;
    GET DIAGNOSTICS v_queued = ROW_COUNT;
    RETURN v_queued;
END
$$;
