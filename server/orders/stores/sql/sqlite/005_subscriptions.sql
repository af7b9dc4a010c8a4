-- Child payments: a subscription's deductions are orders of their own that name the order that
-- started the subscription. Set at create, never changed; the index lists an order's children.
ALTER TABLE checkout_orders ADD COLUMN parent_id TEXT;
CREATE INDEX checkout_orders_parent ON checkout_orders (parent_id, created_at) WHERE parent_id IS NOT NULL;
