-- The hook outbox: one row per hook call a stored change owes, written in the change's own
-- transaction and removed once delivered. `position` orders an order's calls; `id` is the stable
-- event id the hook receives. Dates are epoch milliseconds.
CREATE TABLE checkout_outbox (
  position        INTEGER PRIMARY KEY AUTOINCREMENT,
  id              TEXT    NOT NULL UNIQUE,
  order_id        TEXT    NOT NULL REFERENCES checkout_orders (id) ON DELETE CASCADE,
  hook            TEXT    NOT NULL,
  payload         TEXT    NOT NULL DEFAULT '{}',
  -- the order as the transition left it: what the hook is called with
  order_snapshot  TEXT    NOT NULL,
  status          TEXT    NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'dead')),
  attempts        INTEGER NOT NULL DEFAULT 0,
  next_attempt_at INTEGER NOT NULL,
  last_error      TEXT,
  lease_owner     TEXT,
  lease_until     INTEGER,
  created_at      INTEGER NOT NULL
) STRICT;

CREATE INDEX checkout_outbox_order ON checkout_outbox (order_id, position);
CREATE INDEX checkout_outbox_due ON checkout_outbox (next_attempt_at) WHERE status = 'pending';
