-- Orders and their append-only event log. Runs with search_path set to the store's schema.
-- Amounts are integer minor units (bigint), dates timestamptz, `data` jsonb. No column holds a
-- card number, CVV or expiry: only the masked card the gateway returns.
CREATE TABLE checkout_orders (
  id              text        PRIMARY KEY,
  order_no        text        NOT NULL UNIQUE,
  amount          bigint      NOT NULL CHECK (amount >= 0),
  currency        text        NOT NULL,
  state           text        NOT NULL,
  version         integer     NOT NULL DEFAULT 0,
  method          text,
  transaction_id  text,
  masked_card     text,
  captured_amount bigint      NOT NULL DEFAULT 0 CHECK (captured_amount >= 0),
  refunded_amount bigint      NOT NULL DEFAULT 0 CHECK (refunded_amount >= 0),
  attention       text,
  data            jsonb       NOT NULL DEFAULT '{}'::jsonb,
  created_at      timestamptz NOT NULL,
  updated_at      timestamptz NOT NULL,
  -- per-order lease; compared with the database clock so instances need not agree on time
  lease_owner     text,
  lease_until     timestamptz,
  -- seq of the newest event; bumping it also locks the order row while an event is appended
  last_event_seq  integer     NOT NULL DEFAULT 0
);

CREATE INDEX checkout_orders_transaction_id ON checkout_orders (transaction_id) WHERE transaction_id IS NOT NULL;
CREATE INDEX checkout_orders_due ON checkout_orders (state, updated_at);
CREATE INDEX checkout_orders_created ON checkout_orders (created_at);
CREATE INDEX checkout_orders_attention ON checkout_orders (created_at) WHERE attention IS NOT NULL;

CREATE TABLE checkout_order_events (
  id          text        PRIMARY KEY,
  order_id    text        NOT NULL REFERENCES checkout_orders (id) ON DELETE CASCADE,
  seq         integer     NOT NULL,
  type        text        NOT NULL,
  source      text        NOT NULL,
  from_state  text,
  to_state    text,
  dedupe_key  text,
  actor       text,
  data        jsonb       NOT NULL DEFAULT '{}'::jsonb,
  created_at  timestamptz NOT NULL,
  UNIQUE (order_id, seq)
);

-- NULL keys never collide, so only keyed events are deduplicated.
CREATE UNIQUE INDEX checkout_order_events_dedupe ON checkout_order_events (order_id, dedupe_key);
