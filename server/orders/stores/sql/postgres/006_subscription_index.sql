-- The sweeper pages through every live subscription (first payments holding a recurring id that
-- is active, or cancelled and not yet asked about once more) instead of only the newest orders. A partial index keeps that list as small as
-- the subscriptions it holds; the store's query repeats this WHERE so the planner uses it.
CREATE INDEX checkout_orders_subscriptions ON checkout_orders (id)
  WHERE parent_id IS NULL AND (data->>'recurringId') IS NOT NULL
    AND (coalesce(data->>'subscriptionStatus', 'active') = 'active'
      OR (data->>'subscriptionStatus' = 'cancelled' AND coalesce(data->>'subscriptionCancelSettled', 'false') <> 'true'));
