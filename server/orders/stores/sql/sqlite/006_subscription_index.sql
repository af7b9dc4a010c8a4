-- The sweeper pages through every live subscription (first payments holding a recurring id that
-- is active, or cancelled and not yet asked about once more) instead of only the newest orders. A partial index keeps that list as small as
-- the subscriptions it holds; the store's query repeats this WHERE so SQLite uses it.
CREATE INDEX checkout_orders_subscriptions ON checkout_orders (id)
  WHERE parent_id IS NULL AND json_extract(data, '$.recurringId') IS NOT NULL
    AND (coalesce(json_extract(data, '$.subscriptionStatus'), 'active') = 'active'
      OR (json_extract(data, '$.subscriptionStatus') = 'cancelled' AND coalesce(json_extract(data, '$.subscriptionCancelSettled'), 0) <> 1));
