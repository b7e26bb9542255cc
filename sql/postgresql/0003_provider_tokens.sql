-- 0003_provider_tokens: the APNs provider token (JWT) in use per signing key, so that a
-- (The PostgreSQL twin of sql/0003_provider_tokens.sql: same tables and meaning; see 0001 for how the
-- types are spelled here.)
-- restarted `pushgate serve` goes on with the token it signed before instead of minting a new
-- one: Apple answers TooManyProviderTokenUpdates to keys renewed more often than every 20
-- minutes, and the pushes queued before a crash are exactly the ones sent right after it.
--
-- The token is a bearer credential for at most an hour; the .p8 key it is made from is in
-- `apps` already, so keeping it here exposes nothing new. key_fingerprint (SHA-256 of the key
-- PEM) tells a token of a replaced key under the same ids from a usable one.
CREATE TABLE apns_provider_tokens (
    team_id TEXT COLLATE "C" NOT NULL,
    key_id TEXT COLLATE "C" NOT NULL,
    key_fingerprint TEXT COLLATE "C" NOT NULL,
    token TEXT COLLATE "C" NOT NULL,
    issued_at BIGINT NOT NULL,
    PRIMARY KEY (team_id, key_id)
);
