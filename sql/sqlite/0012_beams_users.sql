-- 0012_beams_users: the Beams device API (today's SDKs) beside the old client API, and
-- Beams' authenticated users.
--
-- * A device-API device is a beams_clients row like an old-API client (so one app install
--   is one client whichever API it used). user_id: the Beams user the device is bound to
--   (PUT …/devices/{platform}/{id}/user with a Beams token), NULL while none; a device is
--   bound to one user at most, a user to 100 devices per app (checked by the store).
--   metadata: the SDK's metadata object (sdkVersion, iosVersion, …) as compact JSON, NULL
--   when none was sent.
-- * api_keys.beams_secret: the sender key itself, kept for keys made from now on. Beams
--   tokens are HS256 JWTs signed with the key the server SDK holds, and HMAC needs that
--   secret, not a digest; older keys (digest only) cannot verify Beams tokens. It is as
--   private as the APNs keys stored beside it.
ALTER TABLE beams_clients ADD COLUMN user_id TEXT;
ALTER TABLE beams_clients ADD COLUMN metadata TEXT;
ALTER TABLE api_keys ADD COLUMN beams_secret TEXT;

-- A publish to users and the removal of a user look devices up by user, within the
-- instance's apps.
CREATE INDEX beams_clients_user ON beams_clients (user_id, app_id) WHERE user_id IS NOT NULL;
