-- 0003_provider_tokens: the APNs provider token (JWT) in use per signing key, so that a
-- restarted `pushgate serve` goes on with the token it signed before instead of minting a new
-- one: Apple answers TooManyProviderTokenUpdates to keys renewed more often than every 20
-- minutes, and the pushes queued before a crash are exactly the ones sent right after it.
--
-- The token is a bearer credential for at most an hour; the .p8 key it is made from is in
-- `apps` already, so keeping it here exposes nothing new. key_fingerprint (SHA-256 of the key
-- PEM) tells a token of a replaced key under the same ids from a usable one.
CREATE TABLE apns_provider_tokens (
    team_id TEXT NOT NULL,
    key_id TEXT NOT NULL,
    key_fingerprint TEXT NOT NULL,
    token TEXT NOT NULL,
    issued_at INTEGER NOT NULL,
    PRIMARY KEY (team_id, key_id)
) STRICT, WITHOUT ROWID;
