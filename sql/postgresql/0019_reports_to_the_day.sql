-- 0019_reports_to_the_day: a Token Reporter report writes a device only when it changes it
-- (see sql/0019_reports_to_the_day.sql).
--
-- 0010 indexed devices.updated_at (devices_updated, and devices_unregistered for unregistered
-- apps), which retention reads to the day. Both report functions still wrote updated_at on
-- every report, and on PostgreSQL every UPDATE writes a new row version; with a column of
-- the row indexed it is no HOT update either, so a repeated report also added an entry to
-- every index of devices. Phones report the same tokens again and again: now a device a
-- channel already links to is written only when the report changes it, with another
-- spelling or on a later day (UTC) than the day of its updated_at, as SQLite's Swift code
-- does (DeviceTable.reportChanges). The same report again within the day writes no row.
--
-- updated_at thus holds the first report of the device's last day. Housekeeping counts
-- retention from the end of that day (DeviceTable.retentionCutoff), so a device lives the
-- retention after its last report and at most a day more. A device found through its
-- (app, token) instead (a channel that moves to it, a new account) is written as before.
--
-- The two functions are 0005's and 0014's with that change alone.

CREATE OR REPLACE FUNCTION pushgate_save_account_tokens(
    p_selector TEXT, p_username TEXT, p_now BIGINT,
    p_channels TEXT[], p_apps TEXT[], p_tokens BYTEA[], p_reported TEXT[]
) RETURNS VOID
LANGUAGE plpgsql AS $$
DECLARE
    v_linked BIGINT;
    v_linked_username TEXT;
    v_has_link BOOLEAN;
    v_device BIGINT;
    v_spelling TEXT;
    v_updated BIGINT;
    v_replaced BIGINT[] := '{}';
BEGIN
    PERFORM pg_advisory_xact_lock(hashtextextended('acrobits_accounts:' || p_selector, 0));
    FOR i IN 1 .. coalesce(array_length(p_channels, 1), 0) LOOP
        SELECT device_id, username INTO v_linked, v_linked_username
        FROM acrobits_accounts WHERE selector = p_selector AND channel = p_channels[i];
        v_has_link := FOUND;
        v_device := NULL;
        IF v_has_link THEN
            SELECT reported_token, updated_at INTO v_spelling, v_updated
            FROM devices WHERE id = v_linked AND app_id = p_apps[i] AND token = p_tokens[i];
            IF FOUND THEN
                v_device := v_linked;
                IF v_spelling IS DISTINCT FROM p_reported[i] OR v_updated / 86400 < p_now / 86400 THEN
                    UPDATE devices SET reported_token = p_reported[i], updated_at = p_now WHERE id = v_linked;
                    IF NOT FOUND THEN
                        -- Deleted since it was read: found or made again below, as before 0019.
                        v_device := NULL;
                    END IF;
                END IF;
            END IF;
        END IF;
        IF v_device IS NULL THEN
            SELECT id INTO v_device FROM devices WHERE app_id = p_apps[i] AND token = p_tokens[i];
            IF FOUND THEN
                UPDATE devices SET reported_token = p_reported[i], updated_at = p_now
                WHERE id = v_device AND app_id = p_apps[i] AND token = p_tokens[i];
            ELSE
                INSERT INTO devices (app_id, token, reported_token, platform, created_at, updated_at)
                VALUES (p_apps[i], p_tokens[i], p_reported[i], (SELECT platform FROM apps WHERE id = p_apps[i]), p_now, p_now)
                RETURNING id INTO v_device;
            END IF;
        END IF;
        IF v_has_link AND v_linked = v_device THEN
            IF p_username IS NOT NULL AND p_username IS DISTINCT FROM v_linked_username THEN
                UPDATE acrobits_accounts SET username = p_username, updated_at = p_now
                WHERE selector = p_selector AND channel = p_channels[i];
            END IF;
            CONTINUE;
        END IF;
        INSERT INTO acrobits_accounts (selector, channel, username, device_id, updated_at)
        VALUES (p_selector, p_channels[i], p_username, v_device, p_now)
        ON CONFLICT (selector, channel) DO UPDATE SET
            username = COALESCE(excluded.username, acrobits_accounts.username),
            device_id = excluded.device_id,
            updated_at = excluded.updated_at;
        IF v_has_link THEN
            v_replaced := v_replaced || v_linked;
        END IF;
    END LOOP;
    IF cardinality(v_replaced) = 0 THEN
        RETURN;
    END IF;
    PERFORM 1 FROM devices WHERE id = ANY (v_replaced) ORDER BY id FOR UPDATE;
    DELETE FROM devices
    WHERE id = ANY (v_replaced)
        AND NOT EXISTS (SELECT 1 FROM acrobits_accounts WHERE device_id = devices.id)
        AND NOT EXISTS (SELECT 1 FROM user_devices WHERE device_id = devices.id)
        AND NOT EXISTS (SELECT 1 FROM beams_clients WHERE device_id = devices.id)
        AND NOT EXISTS (SELECT 1 FROM bridge_subscriptions WHERE device_id = devices.id);
END
$$;

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
        -- Each device records its repeated reports as they would one by one (0019): a report
        -- writes it when its spelling differs from the one before it (the stored one first),
        -- or when its day (UTC) is later than that of the device's time then: the stored
        -- time, or that of the last report written. Within a run of one spelling that day is
        -- the greatest of the run's reports so far (and of the stored time, in the run that
        -- starts from it), so window functions tell which reports write. The device ends with
        -- the last of them (two accounts, or both channels of one), or is not written at all.
        -- A device no longer there is listed too, for the count below.
        WITH c AS (
            SELECT c.device, c.reported, p_nows[c.report] AS now, c.i
            FROM unnest(v_linked, p_reported, v_owners) WITH ORDINALITY AS c(device, reported, report, i)
            WHERE c.report = ANY (v_repeated)
        ), stored AS (
            SELECT u.device, d.reported_token, d.updated_at
            FROM (SELECT DISTINCT c.device FROM c) AS u
            LEFT JOIN LATERAL (
                SELECT d.reported_token, d.updated_at FROM devices d WHERE d.id = u.device OFFSET 0) AS d ON true
        ), changes AS (
            SELECT c.*, s.updated_at AS stored_at,
                c.reported IS DISTINCT FROM lag(c.reported, 1, s.reported_token) OVER (PARTITION BY c.device ORDER BY c.i)
                    AS changed
            FROM c JOIN stored s ON s.device = c.device
        ), runs AS (
            SELECT ch.*, count(*) FILTER (WHERE ch.changed) OVER (PARTITION BY ch.device ORDER BY ch.i) AS run
            FROM changes ch
        ), marked AS (
            SELECT r.*, r.stored_at IS NULL OR r.changed OR r.now / 86400 > CASE
                WHEN r.run = 0 THEN greatest(r.stored_at / 86400, max(r.now / 86400) OVER earlier)
                ELSE max(r.now / 86400) OVER earlier END AS writes
            FROM runs r
            WINDOW earlier AS (PARTITION BY r.device, r.run ORDER BY r.i ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING)
        )
        SELECT array_agg(l.device ORDER BY l.device), array_agg(l.reported ORDER BY l.device),
            array_agg(l.now ORDER BY l.device)
        INTO v_devices, v_spellings, v_times
        FROM (SELECT DISTINCT ON (m.device) m.device, m.reported, m.now FROM marked m WHERE m.writes
              ORDER BY m.device, m.i DESC) AS l;
        IF v_devices IS NOT NULL THEN
            -- By id alone: a device's app and token never change (its id is not used again).
            UPDATE devices d
            SET reported_token = v_spellings[array_position(v_devices, d.id)],
                updated_at = v_times[array_position(v_devices, d.id)]
            WHERE d.id = ANY (v_devices);
            GET DIAGNOSTICS v_recorded = ROW_COUNT;
            -- The links are this batch's (their accounts' locks are held), but a device may
            -- have been deleted (housekeeping, a dead token) since v_linked was read: then the
            -- reports run one by one. (A device of an unchanged report deleted after the
            -- SELECT above is as if deleted after the batch: the report wrote nothing.)
            IF v_recorded <> cardinality(v_devices) THEN
                RAISE EXCEPTION 'a device of a repeated report went away during the batch'
                    USING ERRCODE = 'serialization_failure';
            END IF;
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
