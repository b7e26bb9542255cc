-- 0008_reports_together: several Token Reporter reports in one call (see sql/0008_reports_together.sql).
--
-- The reports that a node's threads make at the same moment are handed to this function
-- together (PostgreSQLStore+AccountReport), in one round trip and one transaction: one
-- commit for the lot instead of one each.
--
-- Phones report the same tokens again and again, and each statement costs the server far
-- more than the index look-ups in it, so the batch is written in sets first: one statement
-- takes every account's advisory lock (the lock pushgate_save_account_tokens takes), in the
-- order of its key, so that two batches on two nodes take them in one order and never
-- deadlock on them; one UPDATE then records the report on every device an account's channel
-- already links to with the reported app and token, for the accounts reported once in the
-- batch. What that did not settle (a new account or token, a new username, an account
-- reported twice in the batch) goes through pushgate_save_account_tokens (migration 0005),
-- report by report in the order given, under the locks already held. Nothing is caught here:
-- when one report fails, the whole batch rolls back, and the caller runs each report again
-- alone, so that only that report's own error reaches its request. That includes a deadlock
-- on two devices with another node's batch (two phones with two accounts each, reported at
-- once into two batches in opposite orders), which PostgreSQL breaks after its
-- deadlock_timeout (a second by default).
--
-- Each statement here is driven by the batch's arrays through the tables' unique indexes,
-- so that a plan cached by a long-lived connection while the tables were nearly empty (a new
-- deployment filling up) stays good when they are large. (A lock of the batch's devices in
-- id order, tried against those deadlocks, was planned as whole-table scans in that case:
-- 30 ms a call instead of 0.3.)
--
-- Report i is p_selectors[i], p_usernames[i] (NULL: keep the stored one), p_nows[i], and
-- its channels are p_firsts[i] .. p_firsts[i] + p_counts[i] - 1 of the channel arrays, which
-- hold the channels of every report, as in pushgate_save_account_tokens.
CREATE FUNCTION pushgate_save_account_reports(
    p_selectors TEXT[], p_usernames TEXT[], p_nows BIGINT[], p_firsts INT[], p_counts INT[],
    p_channels TEXT[], p_apps TEXT[], p_tokens BYTEA[], p_reported TEXT[]
) RETURNS VOID
LANGUAGE plpgsql AS $$
DECLARE
    v_report BIGINT;
    v_first INT;
    v_last INT;
    v_settled BOOLEAN[];
BEGIN
    PERFORM pg_advisory_xact_lock(key)
    FROM (SELECT DISTINCT hashtextextended('acrobits_accounts:' || selector, 0) AS key
          FROM unnest(p_selectors) AS selector ORDER BY 1) AS keys;

    -- The channels of the accounts reported once in the batch whose link already goes to a
    -- device of the reported app and token; each such device records its latest report. A
    -- device that a prune deleted meanwhile is not updated, and its channel is not settled.
    WITH reported AS (
        SELECT r.report, c.i
        FROM generate_subscripts(p_selectors, 1) AS r(report)
        CROSS JOIN LATERAL generate_series(p_firsts[r.report], p_firsts[r.report] + p_counts[r.report] - 1) AS c(i)
        WHERE (SELECT count(*) FROM unnest(p_selectors) AS s WHERE s = p_selectors[r.report]) = 1
    ),
    matched AS (
        SELECT x.report, x.i, a.device_id,
               (p_usernames[x.report] IS NULL OR p_usernames[x.report] = a.username) AS same_name
        FROM reported x
        JOIN acrobits_accounts a ON a.selector = p_selectors[x.report] AND a.channel = p_channels[x.i]
        JOIN devices d ON d.id = a.device_id AND d.app_id = p_apps[x.i] AND d.token = p_tokens[x.i]
    ),
    recorded AS (
        UPDATE devices d SET reported_token = p_reported[m.i], updated_at = p_nows[m.report]
        FROM (SELECT DISTINCT ON (device_id) device_id, report, i FROM matched ORDER BY device_id, report DESC, i DESC) AS m
        WHERE d.id = m.device_id
        RETURNING d.id
    )
    SELECT array_agg(settled ORDER BY report) INTO v_settled
    FROM (
        SELECT r.report,
               count(m.i) FILTER (WHERE m.same_name AND m.device_id IN (SELECT id FROM recorded)) = p_counts[r.report]
                   AS settled
        FROM generate_subscripts(p_selectors, 1) AS r(report)
        LEFT JOIN matched m ON m.report = r.report
        GROUP BY r.report
    ) AS outcome;

    FOR v_report IN SELECT generate_subscripts(p_selectors, 1) LOOP
        CONTINUE WHEN v_settled[v_report];
        v_first := p_firsts[v_report];
        v_last := v_first + p_counts[v_report] - 1;
        PERFORM pushgate_save_account_tokens(
            p_selectors[v_report], p_usernames[v_report], p_nows[v_report],
            p_channels[v_first:v_last], p_apps[v_first:v_last], p_tokens[v_first:v_last],
            p_reported[v_first:v_last]);
    END LOOP;
END
$$;
