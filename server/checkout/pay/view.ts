/**
 * The pay page's view model: what `+checkoutOrderSummary` and `+checkoutPayForm` render and what
 * a shop's own `payPage` receives. Types only, with no imports from the rest of checkout/, so the
 * options, the context and the pay route can all name them without importing each other.
 */
import type { Translator } from '../../i18n/index.js';
import type { Order, PaymentMethodKind } from '../../orders/types.js';

export interface OrderSummary {
  orderNo: string;
  /** The page's language and its strings (the mixins' labels). */
  lang: string;
  t: Translator['t'];
  amountText: string;
  items: { name: string; quantity: number; unitPriceText: string; totalText: string }[];
}

export interface ApmChoice {
  value: string;
  name: string;
  /** The method needs the payer's document (the form shows the payer fields for it). */
  needsPerson?: boolean;
}

export interface PayFormOptions {
  /** Absolute URL of POST /pay/:token. */
  action: string;
  csrfField: string;
  csrfToken: string;
  methods: PaymentMethodKind[];
  apms: ApmChoice[];
  /** True when APM is allowed but the list could not be fetched. */
  apmUnavailable: boolean;
  /** What the shopper typed, shown again after an error: never the card number or security code. */
  values: PayFormValues;
  /** Messages in the shopper's language, by field. */
  errors: Record<string, string>;
  deviceFields: readonly string[];
  lang: string;
  t: Translator['t'];
  /** Move keyboard focus to the error summary (set when the form comes back with errors). */
  focusErrors: boolean;
  /** The shopper's saved cards and whether the card form offers "save this card". */
  savedCards: SavedCardOffer;
}

/** Keyed by the pay form's field names (schema.ts), which the browser posts. */
export interface PayFormValues {
  first_name?: string;
  last_name?: string;
  payment_method?: string;
  expiration_month?: string;
  expiration_year?: string;
  /** The payer data typed for an APM that needs it (never card data). */
  person_document_type?: string;
  person_document_number?: string;
  person_birth_date?: string;
  person_phone?: string;
  /** The method the shopper last used; its form is shown first. */
  method?: string;
}

/**
 * What `payPage` receives to draw the pay page in the shop's own layout: the same locals as
 * `payFormLocals` (for `+checkoutOrderSummary(summary)` and `+checkoutPayForm(summary, form)`),
 * the HTTP status to answer with (400 when the form comes back with errors) and the language.
 */
export interface PayPageRender {
  order: Order;
  summary: OrderSummary;
  form: PayFormOptions;
  status: number;
  /** "Pay for order KL-…" in the shopper's language. */
  title: string;
  translator: Translator;
}

/** One saved card as the pay page shows it: never the token. */
export interface SavedCardChoice {
  id: string;
  brand: string;
  last4: string;
  /** `MM/YY`. */
  expiry: string;
  /** Absolute URL of the removal route. */
  removeAction: string;
}

export interface SavedCardOffer {
  /** Show the "save this card" checkbox on the card form. */
  canSave: boolean;
  cards: SavedCardChoice[];
  /** The page follows a removal: say that the card was removed. */
  removed: boolean;
}
