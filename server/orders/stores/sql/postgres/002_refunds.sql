-- The refund ledger: one row per refund, keyed by the gateway's refund_reference_id once it is
-- known (a staff refund awaiting its answer has none yet). The order's refunded_amount is the
-- sum of its succeeded rows, written in the same transaction as the rows.
CREATE TABLE checkout_order_refunds (
  id           text        PRIMARY KEY,
  order_id     text        NOT NULL REFERENCES checkout_orders (id) ON DELETE CASCADE,
  reference_id text,
  reference    text,
  amount       bigint      NOT NULL CHECK (amount > 0),
  currency     text        NOT NULL,
  status       text        NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  source       text        NOT NULL,
  created_at   timestamptz NOT NULL,
  updated_at   timestamptz NOT NULL
);

-- NULL references never collide, so any number of rows may await their answer.
CREATE UNIQUE INDEX checkout_order_refunds_reference ON checkout_order_refunds (order_id, reference_id);
CREATE INDEX checkout_order_refunds_order ON checkout_order_refunds (order_id, created_at);
CREATE INDEX checkout_order_refunds_pending ON checkout_order_refunds (created_at) WHERE status = 'pending';

-- Totals refunded before the ledger existed become one succeeded row without a reference.
INSERT INTO checkout_order_refunds (id, order_id, reference_id, reference, amount, currency, status, source, created_at, updated_at)
  SELECT 'import-' || id, id, NULL, NULL, refunded_amount, currency, 'succeeded', 'import', updated_at, updated_at
  FROM checkout_orders WHERE refunded_amount > 0;
