-- Admin batch jobs, one row per order of a job, and the payouts staff sent.
-- Dates are epoch milliseconds; amounts are integer minor units; JSON columns are text.
CREATE TABLE IF NOT EXISTS admin_jobs (
  id TEXT PRIMARY KEY,
  action TEXT NOT NULL,
  created_by TEXT NOT NULL,
  status TEXT NOT NULL,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS admin_jobs_created_idx ON admin_jobs (created_at DESC);
CREATE INDEX IF NOT EXISTS admin_jobs_status_idx ON admin_jobs (status);

CREATE TABLE IF NOT EXISTS admin_job_items (
  job_id TEXT NOT NULL REFERENCES admin_jobs (id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  order_no TEXT NOT NULL,
  status TEXT NOT NULL,
  message TEXT,
  updated_at INTEGER NOT NULL,
  PRIMARY KEY (job_id, order_no)
);
CREATE INDEX IF NOT EXISTS admin_job_items_position_idx ON admin_job_items (job_id, position);

CREATE TABLE IF NOT EXISTS admin_payouts (
  request_id TEXT PRIMARY KEY,
  created_by TEXT NOT NULL,
  status TEXT NOT NULL,
  amount INTEGER NOT NULL,
  currency TEXT NOT NULL,
  beneficiary TEXT NOT NULL,
  reference TEXT NOT NULL,
  transaction_id TEXT,
  message TEXT,
  request_json TEXT NOT NULL,
  response_json TEXT,
  created_at INTEGER NOT NULL,
  updated_at INTEGER NOT NULL
);
CREATE INDEX IF NOT EXISTS admin_payouts_created_idx ON admin_payouts (created_at DESC);
