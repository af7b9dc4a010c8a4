-- The built-in staff sign-in: accounts with a scrypt password hash, and server-side sessions
-- stored under the SHA-256 of their id. Dates are epoch milliseconds.
CREATE TABLE IF NOT EXISTS admin_staff (
  id TEXT PRIMARY KEY,
  name TEXT,
  password_hash TEXT NOT NULL,
  config_hash TEXT NOT NULL,
  password_changed_at INTEGER NOT NULL
);

CREATE TABLE IF NOT EXISTS admin_sessions (
  id_hash TEXT PRIMARY KEY,
  staff_id TEXT NOT NULL REFERENCES admin_staff (id) ON DELETE CASCADE,
  created_at INTEGER NOT NULL,
  expires_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS admin_sessions_staff_idx ON admin_sessions (staff_id);
CREATE INDEX IF NOT EXISTS admin_sessions_expires_idx ON admin_sessions (expires_at);
