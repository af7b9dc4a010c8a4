-- Saved cards: the gateway's stored-card token with what the shopper recognises the card by.
-- Never the card number or security code. One row per shopper and token.
CREATE TABLE checkout_saved_cards (
  id           TEXT    PRIMARY KEY,
  shopper_id   TEXT    NOT NULL,
  token_id     TEXT    NOT NULL,
  brand        TEXT    NOT NULL,
  last4        TEXT    NOT NULL CHECK (length(last4) = 4),
  expiry_month INTEGER NOT NULL CHECK (expiry_month BETWEEN 1 AND 12),
  expiry_year  INTEGER NOT NULL,
  created_at   INTEGER NOT NULL
) STRICT;

CREATE UNIQUE INDEX checkout_saved_cards_token ON checkout_saved_cards (shopper_id, token_id);
CREATE INDEX checkout_saved_cards_shopper ON checkout_saved_cards (shopper_id, created_at);
