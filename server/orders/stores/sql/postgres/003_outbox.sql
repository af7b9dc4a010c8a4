-- The hook outbox: one row per hook call a stored change owes, written in the change's own
-- transaction and removed once delivered. `position` orders an order's calls (an order's rows
-- are written under its row lock, so their positions follow commit order); `id` is the stable
-- event id the hook receives.
CREATE TABLE checkout_outbox (
  position        bigserial   PRIMARY KEY,
  id              text        NOT NULL UNIQUE,
  order_id        text        NOT NULL REFERENCES checkout_orders (id) ON DELETE CASCADE,
  hook            text        NOT NULL,
  payload         jsonb       NOT NULL DEFAULT '{}'::jsonb,
  -- the order as the transition left it: what the hook is called with
  order_snapshot  jsonb       NOT NULL,
  status          text        NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'dead')),
  attempts        integer     NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL,
  last_error      text,
  lease_owner     text,
  lease_until     timestamptz,
  created_at      timestamptz NOT NULL
);

CREATE INDEX checkout_outbox_order ON checkout_outbox (order_id, position);
CREATE INDEX checkout_outbox_due ON checkout_outbox (next_attempt_at) WHERE status = 'pending';
