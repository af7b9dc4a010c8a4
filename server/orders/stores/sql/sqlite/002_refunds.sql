-- The refund ledger: one row per refund, keyed by the gateway's refund_reference_id once it is
-- known (a staff refund awaiting its answer has none yet). The order's refunded_amount is the
-- sum of its succeeded rows, written in the same transaction as the rows.
CREATE TABLE checkout_order_refunds (
  id           TEXT    PRIMARY KEY,
  order_id     TEXT    NOT NULL REFERENCES checkout_orders (id) ON DELETE CASCADE,
  reference_id TEXT,
  reference    TEXT,
  amount       INTEGER NOT NULL CHECK (amount > 0),
  currency     TEXT    NOT NULL,
  status       TEXT    NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  source       TEXT    NOT NULL,
  created_at   INTEGER NOT NULL,
  updated_at   INTEGER NOT NULL
) STRICT;

-- NULL references never collide, so any number of rows may await their answer.
CREATE UNIQUE INDEX checkout_order_refunds_reference ON checkout_order_refunds (order_id, reference_id);
CREATE INDEX checkout_order_refunds_order ON checkout_order_refunds (order_id, created_at);
CREATE INDEX checkout_order_refunds_pending ON checkout_order_refunds (created_at) WHERE status = 'pending';

-- Totals refunded before the ledger existed become one succeeded row without a reference.
INSERT INTO checkout_order_refunds (id, order_id, reference_id, reference, amount, currency, status, source, created_at, updated_at)
  SELECT 'import-' || id, id, NULL, NULL, refunded_amount, currency, 'succeeded', 'import', updated_at, updated_at
  FROM checkout_orders WHERE refunded_amount > 0;
