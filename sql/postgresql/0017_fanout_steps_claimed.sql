-- 0017_fanout_steps_claimed: a step of a fan-out that the outbox worker queues is claimed
-- by that worker as it is queued, and the function answers the ids of the rows it queued.
--
-- Queued as due and then claimed by the next `claimDue`, each row of a fan-out was written
-- twice: inserted, then updated to move its due time to the end of the lease. That update
-- is never in place (the due time is indexed), so it wrote a new version of the row and an
-- entry in each of the outbox's four indexes, about as much as the insert itself. The
-- worker now takes a step only when its claim of due rows comes back short of a batch, and
-- the step fills the rest of the batch with rows already leased to it (p_until, p_node:
-- attempts counted, due at the lease's end, as a claim leaves them). The publish's own
-- first step passes NULL for both and queues its rows due at once, for any node to claim.
-- Which devices a step queues is 0013's rule, unchanged; the plan settings are 0015's.
DROP FUNCTION pushgate_enqueue_fanout_step(BIGINT, BIGINT, TEXT, TEXT, TEXT, JSONB, JSONB);

CREATE FUNCTION pushgate_enqueue_fanout_step(
    p_payload BIGINT, p_now BIGINT, p_interest TEXT, p_after TEXT, p_through TEXT, p_apps JSONB, p_earlier JSONB,
    p_until BIGINT, p_node TEXT
) RETURNS SETOF BIGINT
LANGUAGE plpgsql
SET enable_hashjoin = off
SET enable_mergejoin = off
SET enable_seqscan = off
SET jit = off
AS $$
DECLARE
    v_attempts BIGINT := CASE WHEN p_node IS NULL THEN 0 ELSE 1 END;
BEGIN
    IF p_through IS NULL THEN
        RETURN QUERY WITH queued AS (
            INSERT INTO outbox (payload_id, device_id, attempts, next_attempt_at, claimed_until, claimed_by, created_at)
            SELECT p_payload, c.device_id, v_attempts, coalesce(p_until, p_now), p_until, p_node, p_now
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
                            OR s.interest IN (SELECT jsonb_array_elements_text(p_earlier))))
            RETURNING outbox.id)
        SELECT queued.id FROM queued;
    ELSE
        RETURN QUERY WITH queued AS (
            INSERT INTO outbox (payload_id, device_id, attempts, next_attempt_at, claimed_until, claimed_by, created_at)
            SELECT p_payload, c.device_id, v_attempts, coalesce(p_until, p_now), p_until, p_node, p_now
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
                            OR s.interest IN (SELECT jsonb_array_elements_text(p_earlier))))
            RETURNING outbox.id)
        SELECT queued.id FROM queued;
    END IF;
END
$$;
