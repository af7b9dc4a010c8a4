-- Saved cards: the gateway's stored-card token with what the shopper recognises the card by.
-- Never the card number or security code. One row per shopper and token.
CREATE TABLE checkout_saved_cards (
  id           text        PRIMARY KEY,
  shopper_id   text        NOT NULL,
  token_id     text        NOT NULL,
  brand        text        NOT NULL,
  last4        text        NOT NULL CHECK (length(last4) = 4),
  expiry_month integer     NOT NULL CHECK (expiry_month BETWEEN 1 AND 12),
  expiry_year  integer     NOT NULL,
  created_at   timestamptz NOT NULL
);

CREATE UNIQUE INDEX checkout_saved_cards_token ON checkout_saved_cards (shopper_id, token_id);
CREATE INDEX checkout_saved_cards_shopper ON checkout_saved_cards (shopper_id, created_at);
