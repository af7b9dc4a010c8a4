-- An order's events are numbered by the order row (last_event_seq), bumped in the same transaction
-- as each insert, so (order_id, seq) is unique without an index of its own. That index cost a
-- B-tree page written per event (the order's place in it is anywhere in the file): about a tenth of
-- the store's work per notification (docs/performance.md). Listing an order's events walks the
-- dedupe index, which starts with order_id too, and sorts its few rows by seq. SQLite cannot drop
-- a table constraint, so the table is rebuilt (one copy of the event log, once).
CREATE TABLE checkout_order_events_new (
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
  created_at  INTEGER NOT NULL
) STRICT;

INSERT INTO checkout_order_events_new (id, order_id, seq, type, source, from_state, to_state, dedupe_key, actor, data, created_at)
  SELECT id, order_id, seq, type, source, from_state, to_state, dedupe_key, actor, data, created_at
  FROM checkout_order_events ORDER BY rowid;

DROP TABLE checkout_order_events;

ALTER TABLE checkout_order_events_new RENAME TO checkout_order_events;

-- NULL keys never collide, so only keyed events are deduplicated.
CREATE UNIQUE INDEX checkout_order_events_dedupe ON checkout_order_events (order_id, dedupe_key);
