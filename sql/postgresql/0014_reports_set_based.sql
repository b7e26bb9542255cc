-- 0014_reports_set_based: a batch of Token Reporter reports written with a few statements
-- for the whole batch, not a few per report (see sql/0014_reports_set_based.sql).
--
-- Each statement a plpgsql function runs costs the server far more than the index probes in
-- it: written one UPDATE per channel (0008), a repeated report cost PostgreSQL ~200 µs of
-- CPU, three times SQLite's whole report. Here the batch takes the same advisory locks, then:
-- * one SELECT reads each channel's link (a probe of each index per channel), one more sorts
--   the reports: repeated (every channel links to a device of the reported app and token,
--   and the username is the stored one or not given), new (the account has no link at all),
--   or ordered (anything else: a changed token or username, and every report of an account
--   that appears twice in the batch, whose order matters);
-- * a report that shares an (app, token) with an ordered report (its tokens, or the devices
--   its account links to now), or a new report that shares one with a repeated report, is
--   ordered too, until none does: the set-based statements below run before the ordered
--   reports, so only where they touch different devices is the result that of the batch's
--   order;
-- * one UPDATE records the repeated reports on their devices (a device two of them share
--   records the later one, as in order);
-- * one INSERT … ON CONFLICT finds or creates the devices of the new reports (each (app,
--   token) once: created when first reported, holding its last report), one INSERT links them;
-- * the ordered reports go through pushgate_save_account_tokens (0005) one by one, in order.
--
-- The plans are pinned. Every table is reached from a row of the batch through a subquery
-- that names that row's values, so its plans are index probes; and with hash and merge joins
-- and sequential scans off, no other plan is left to the planner. Without that, a plan the
-- connection cached while the tables were nearly empty (and their statistics said so)
-- started from a scan of the whole devices table on every call once it had grown: 40-50 ms
-- a call at 80,000 devices instead of 2 (the first set-based version, dropped for that in
-- 0008). JIT is off: these statements run for well under a millisecond, compiling them would
-- take several. The settings hold inside this function only, and for the statements it
-- runs, pushgate_save_account_tokens' too.
--
-- As in 0008 nothing is caught: when the batch fails (a report's fault, a deadlock with
-- another node's batch, a device of a repeated report deleted meanwhile), all of it rolls
-- back and the caller runs each report alone. Report i is p_selectors[i], p_usernames[i]
-- (NULL: keep the stored one), p_nows[i]; its channels are p_firsts[i] .. p_firsts[i] +
-- p_counts[i] - 1 of the channel arrays, one report after the other.
CREATE OR REPLACE FUNCTION pushgate_save_account_reports(
    p_selectors TEXT[], p_usernames TEXT[], p_nows BIGINT[], p_firsts INT[], p_counts INT[],
    p_channels TEXT[], p_apps TEXT[], p_tokens BYTEA[], p_reported TEXT[]
) RETURNS VOID
LANGUAGE plpgsql
SET enable_hashjoin = off
SET enable_mergejoin = off
SET enable_seqscan = off
SET jit = off
AS $$
DECLARE
    -- The report of each channel: unnest(p_channels, …, v_owners) is the batch's channels.
    v_owners INT[];
    -- Per channel, the device its link goes to when the link is as reported, else NULL.
    v_linked BIGINT[];
    v_repeated INT[];
    v_new INT[];
    v_moved INT[];
    -- What the repeated reports record, per device, in the order of v_devices.
    v_devices BIGINT[];
    v_spellings TEXT[];
    v_times BIGINT[];
    v_recorded BIGINT;
BEGIN
    PERFORM pg_advisory_xact_lock(key)
    FROM (SELECT DISTINCT hashtextextended('acrobits_accounts:' || selector, 0) AS key
          FROM unnest(p_selectors) AS selector ORDER BY 1) AS keys;

    v_owners := ARRAY(
        SELECT r.report FROM generate_subscripts(p_firsts, 1) AS r(report), generate_series(1, p_counts[r.report])
        ORDER BY r.report);

    -- Tables are only ever reached from a row of the batch, in a subquery that names its
    -- values (a scalar subquery, or LATERAL … OFFSET 0, which the planner keeps as it is):
    -- its only plans are probes of an index, never a scan of a whole table that a join
    -- order chosen from the statistics of nearly empty tables could start from.
    v_linked := ARRAY(
        SELECT (
            SELECT a.device_id
            FROM acrobits_accounts a JOIN devices d ON d.id = a.device_id
            WHERE a.selector = p_selectors[c.report] AND a.channel = c.channel
                AND d.app_id = c.app AND d.token = c.token
                AND (p_usernames[c.report] IS NULL OR a.username = p_usernames[c.report]))
        FROM unnest(p_channels, p_apps, p_tokens, v_owners) WITH ORDINALITY AS c(channel, app, token, report, i)
        ORDER BY c.i);

    WITH once AS (
        SELECT min(r.report) AS report, r.selector
        FROM unnest(p_selectors) WITH ORDINALITY AS r(selector, report)
        GROUP BY r.selector HAVING count(*) = 1
    ), sorted AS (
        SELECT o.report, o.selector,
            array_position(v_linked[p_firsts[o.report]:p_firsts[o.report] + p_counts[o.report] - 1], NULL) IS NULL
                AS settled
        FROM once o
    )
    SELECT
        ARRAY(SELECT s.report FROM sorted s WHERE s.settled),
        ARRAY(
            SELECT s.report FROM sorted s
            WHERE NOT s.settled AND NOT EXISTS (SELECT 1 FROM acrobits_accounts a WHERE a.selector = s.selector))
    INTO v_repeated, v_new;

    -- Only a batch with ordered reports, or with both repeated and new ones, can have a
    -- report to move; each round moves at least one.
    WHILE cardinality(v_repeated) + cardinality(v_new) > 0
        AND (cardinality(v_repeated) + cardinality(v_new) < cardinality(p_selectors)
            OR (cardinality(v_repeated) > 0 AND cardinality(v_new) > 0)) LOOP
        WITH c AS (
            SELECT * FROM unnest(p_apps, p_tokens, v_owners) AS c(app, token, report)
        ), ordered AS MATERIALIZED (
            SELECT c.app, c.token FROM c WHERE c.report <> ALL (v_repeated) AND c.report <> ALL (v_new)
            UNION ALL
            SELECT linked.app_id, linked.token
            FROM generate_subscripts(p_selectors, 1) AS r(report)
            CROSS JOIN LATERAL (
                SELECT d.app_id, d.token
                FROM acrobits_accounts a
                CROSS JOIN LATERAL (SELECT d.app_id, d.token FROM devices d WHERE d.id = a.device_id OFFSET 0) AS d
                WHERE a.selector = p_selectors[r.report]
                OFFSET 0) AS linked
            WHERE r.report <> ALL (v_repeated) AND r.report <> ALL (v_new)
        )
        SELECT array_agg(DISTINCT c.report) INTO v_moved
        FROM c
        WHERE (c.report = ANY (v_repeated) OR c.report = ANY (v_new))
            AND (EXISTS (SELECT 1 FROM ordered o WHERE o.app = c.app AND o.token = c.token)
                OR (c.report = ANY (v_new) AND EXISTS (
                    SELECT 1 FROM c r WHERE r.report = ANY (v_repeated) AND r.app = c.app AND r.token = c.token)));
        EXIT WHEN v_moved IS NULL;
        v_repeated := ARRAY(SELECT r FROM unnest(v_repeated) AS r WHERE r <> ALL (v_moved));
        v_new := ARRAY(SELECT r FROM unnest(v_new) AS r WHERE r <> ALL (v_moved));
    END LOOP;

    IF cardinality(v_repeated) > 0 THEN
        -- A device that several channels record (two accounts, or both channels of one)
        -- keeps the last of them, as in order.
        SELECT array_agg(l.device ORDER BY l.device), array_agg(l.reported ORDER BY l.device),
            array_agg(p_nows[l.report] ORDER BY l.device)
        INTO v_devices, v_spellings, v_times
        FROM (
            SELECT DISTINCT ON (c.device) c.device, c.reported, c.report
            FROM unnest(v_linked, p_reported, v_owners) WITH ORDINALITY AS c(device, reported, report, i)
            WHERE c.report = ANY (v_repeated)
            ORDER BY c.device, c.i DESC) AS l;
        -- By id alone: a device's app and token never change (its id is not used again).
        UPDATE devices d
        SET reported_token = v_spellings[array_position(v_devices, d.id)],
            updated_at = v_times[array_position(v_devices, d.id)]
        WHERE d.id = ANY (v_devices);
        GET DIAGNOSTICS v_recorded = ROW_COUNT;
        -- The links are this batch's (their accounts' locks are held), but a device may
        -- have been deleted (housekeeping) since v_linked was read: then the reports run
        -- one by one.
        IF v_recorded <> cardinality(v_devices) THEN
            RAISE EXCEPTION 'a device of a repeated report went away during the batch'
                USING ERRCODE = 'serialization_failure';
        END IF;
    END IF;

    IF cardinality(v_new) > 0 THEN
        WITH c AS (
            SELECT c.*, p_nows[c.report] AS now
            FROM unnest(p_channels, p_apps, p_tokens, p_reported, v_owners) WITH ORDINALITY
                AS c(channel, app, token, reported, report, i)
            WHERE c.report = ANY (v_new)
        ), keys AS (
            -- ON CONFLICT cannot touch a row twice: each (app, token) once, as the reports
            -- in order would leave it.
            SELECT DISTINCT ON (c.app, c.token) c.app, c.token, c.reported, c.now,
                first_value(c.now) OVER (PARTITION BY c.app, c.token ORDER BY c.i) AS created
            FROM c
            ORDER BY c.app, c.token, c.i DESC
        ), found AS (
            INSERT INTO devices (app_id, token, reported_token, platform, created_at, updated_at)
            SELECT keys.app, keys.token, keys.reported, (SELECT platform FROM apps WHERE id = keys.app),
                keys.created, keys.now
            FROM keys
            ORDER BY keys.app, keys.token
            ON CONFLICT (app_id, token) DO UPDATE SET
                reported_token = excluded.reported_token,
                updated_at = excluded.updated_at
            RETURNING id, app_id, token
        )
        INSERT INTO acrobits_accounts (selector, channel, username, device_id, updated_at)
        SELECT p_selectors[c.report], c.channel, p_usernames[c.report], found.id, c.now
        FROM c JOIN found ON found.app_id = c.app AND found.token = c.token
        ON CONFLICT (selector, channel) DO UPDATE SET
            username = COALESCE(excluded.username, acrobits_accounts.username),
            device_id = excluded.device_id,
            updated_at = excluded.updated_at;
    END IF;

    FOR v_report IN 1 .. coalesce(array_length(p_selectors, 1), 0) LOOP
        CONTINUE WHEN v_report = ANY (v_repeated) OR v_report = ANY (v_new);
        PERFORM pushgate_save_account_tokens(
            p_selectors[v_report], p_usernames[v_report], p_nows[v_report],
            p_channels[p_firsts[v_report]:p_firsts[v_report] + p_counts[v_report] - 1],
            p_apps[p_firsts[v_report]:p_firsts[v_report] + p_counts[v_report] - 1],
            p_tokens[p_firsts[v_report]:p_firsts[v_report] + p_counts[v_report] - 1],
            p_reported[p_firsts[v_report]:p_firsts[v_report] + p_counts[v_report] - 1]);
    END LOOP;
END
$$;
