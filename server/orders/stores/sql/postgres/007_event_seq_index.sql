-- An order's events are numbered by the order row (last_event_seq), bumped by the same statement
-- or transaction as each insert under the row's lock, so (order_id, seq) is unique without an
-- index of its own; that index cost an index entry and its WAL per event. Listing an order's
-- events walks the dedupe index, which starts with order_id too, and sorts its rows by seq.
ALTER TABLE checkout_order_events DROP CONSTRAINT IF EXISTS checkout_order_events_order_id_seq_key;
