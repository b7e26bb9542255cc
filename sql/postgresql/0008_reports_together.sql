-- 0008_reports_together: several Token Reporter reports in one call (see sql/0008_reports_together.sql).
--
-- The reports that a node's threads make at the same moment are handed to this function
-- together (PostgreSQLStore+AccountReport), in one round trip and one transaction: one
-- commit for the lot instead of one each.
--
-- Phones report the same tokens again and again, and each statement costs the server far
-- more than the index look-ups in it, so a report whose channels already link to the
-- reported tokens costs one statement per channel here: an UPDATE of the linked device that
-- matches only when the link, app and token are as reported (pushgate_save_account_tokens
-- spends two statements per channel on that, after its own lock). What that does not settle
-- (a new account or token, a new username) goes through pushgate_save_account_tokens
-- (migration 0005). Reports run in the order given, so two reports of one account keep
-- theirs. One statement first takes every account's advisory lock (the lock
-- pushgate_save_account_tokens takes, then already held) in the order of its key, so that
-- two batches take them in one order and never deadlock on them.
--
-- Every statement is a probe of a unique index with one row per key: a connection caches
-- each one's plan, and a join over the batch's arrays was planned as a hash of the whole
-- devices table by connections that had cached it while the tables were nearly empty and
-- their statistics said so (40-50 ms a call at 80,000 devices instead of 2).
--
-- Nothing is caught here: when one report fails, the whole batch rolls back, and the caller
-- runs each report again alone, so that only that report's own error reaches its request.
-- That includes a deadlock on two devices with another node's batch (two phones with two
-- accounts each, reported at once into two batches in opposite orders), which PostgreSQL
-- breaks after its deadlock_timeout (a second by default).
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
    v_report INT;
    v_first INT;
    v_last INT;
    v_settled BOOLEAN;
    v_username TEXT;
BEGIN
    PERFORM pg_advisory_xact_lock(key)
    FROM (SELECT DISTINCT hashtextextended('acrobits_accounts:' || selector, 0) AS key
          FROM unnest(p_selectors) AS selector ORDER BY 1) AS keys;

    FOR v_report IN 1 .. coalesce(array_length(p_selectors, 1), 0) LOOP
        v_first := p_firsts[v_report];
        v_last := v_first + p_counts[v_report] - 1;
        v_settled := true;
        FOR i IN v_first .. v_last LOOP
            UPDATE devices d SET reported_token = p_reported[i], updated_at = p_nows[v_report]
            FROM acrobits_accounts a
            WHERE a.selector = p_selectors[v_report] AND a.channel = p_channels[i]
                AND d.id = a.device_id AND d.app_id = p_apps[i] AND d.token = p_tokens[i]
            RETURNING a.username INTO v_username;
            IF NOT FOUND OR (p_usernames[v_report] IS NOT NULL AND p_usernames[v_report] IS DISTINCT FROM v_username) THEN
                v_settled := false;
                EXIT;
            END IF;
        END LOOP;
        CONTINUE WHEN v_settled;
        PERFORM pushgate_save_account_tokens(
            p_selectors[v_report], p_usernames[v_report], p_nows[v_report],
            p_channels[v_first:v_last], p_apps[v_first:v_last], p_tokens[v_first:v_last],
            p_reported[v_first:v_last]);
    END LOOP;
END
$$;
