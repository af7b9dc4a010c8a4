-- Orders and their append-only event log. Amounts are integer minor units, dates epoch
-- milliseconds, `data` JSON text. No column holds a card number, CVV or expiry: only the masked
-- card the gateway returns.
CREATE TABLE checkout_orders (
  id              TEXT    PRIMARY KEY,
  order_no        TEXT    NOT NULL UNIQUE,
  amount          INTEGER NOT NULL CHECK (amount >= 0),
  currency        TEXT    NOT NULL,
  state           TEXT    NOT NULL,
  version         INTEGER NOT NULL DEFAULT 0,
  method          TEXT,
  transaction_id  TEXT,
  masked_card     TEXT,
  captured_amount INTEGER NOT NULL DEFAULT 0 CHECK (captured_amount >= 0),
  refunded_amount INTEGER NOT NULL DEFAULT 0 CHECK (refunded_amount >= 0),
  attention       TEXT,
  data            TEXT    NOT NULL DEFAULT '{}',
  created_at      INTEGER NOT NULL,
  updated_at      INTEGER NOT NULL,
  -- per-order lease held by one reconcile run or sweeper at a time
  lease_owner     TEXT,
  lease_until     INTEGER,
  -- seq of the newest event, so appending needs no scan of the log
  last_event_seq  INTEGER NOT NULL DEFAULT 0
) STRICT;

CREATE INDEX checkout_orders_transaction_id ON checkout_orders (transaction_id) WHERE transaction_id IS NOT NULL;
CREATE INDEX checkout_orders_due ON checkout_orders (state, updated_at);
CREATE INDEX checkout_orders_created ON checkout_orders (created_at);
CREATE INDEX checkout_orders_attention ON checkout_orders (created_at) WHERE attention IS NOT NULL;

CREATE TABLE checkout_order_events (
  id          TEXT    PRIMARY KEY,
  order_id    TEXT    NOT NULL REFERENCES checkout_orders (id) ON DELETE CASCADE,
  seq         INTEGER NOT NULL,
  type        TEXT    NOT NULL,
  source      TEXT    NOT NULL,
  from_state  TEXT,
  to_state    TEXT,
  dedupe_key  TEXT,
  actor       TEXT,
  data        TEXT    NOT NULL DEFAULT '{}',
  created_at  INTEGER NOT NULL,
  UNIQUE (order_id, seq)
) STRICT;

-- NULL keys never collide, so only keyed events are deduplicated.
CREATE UNIQUE INDEX checkout_order_events_dedupe ON checkout_order_events (order_id, dedupe_key);
