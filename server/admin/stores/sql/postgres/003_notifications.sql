-- Verified notifications no order or payout matches (kept once per dedupe key), and the lookup
-- of a payout by the gateway transaction id its notifications name.
CREATE TABLE IF NOT EXISTS admin_notifications (
  dedupe_key TEXT PRIMARY KEY,
  kind TEXT NOT NULL,
  type TEXT NOT NULL,
  order_no TEXT,
  transaction_id TEXT,
  problem TEXT,
  summary_json JSONB NOT NULL,
  received_at TIMESTAMPTZ NOT NULL
);
CREATE INDEX IF NOT EXISTS admin_notifications_received_idx ON admin_notifications (received_at DESC);
CREATE INDEX IF NOT EXISTS admin_payouts_transaction_idx ON admin_payouts (transaction_id);
