/**
 * The pay page's locals: the order summary (amounts formatted from minor units), the method
 * forms, the APM list from the gateway's optimise operation (left out when it fails or is
 * slow, so the other methods still work), the CSRF field and the device-data inputs.
 * `payFormLocals` is exported so a shop can render `+checkoutPayForm` in its own page.
 */
import type { Request, Response } from 'express';
import { optimiseInput } from '../../gateway/payment-request.js';
import { needsPersonData } from '../../gateway/person-methods.js';
import { formatMoney, type Translator } from '../../i18n/index.js';
import type { Order, PaymentMethodKind } from '../../orders/types.js';
import type { KitContext } from '../context.js';
import { DEVICE_FIELD_NAMES, normaliseIp } from '../device.js';
import { deviceTypeOf } from '../device-ua.js';
import { useOrderLocale } from '../render.js';
import { createCsrf, type Csrf } from '../../http/csrf.js';
import { savedCardExpired, type CardBrand } from '../../orders/saved-cards.js';
import { allowedMethods, payOrderData, savedCardsFor, type PayOrderData } from './request.js';
import type { ApmChoice, OrderSummary, PayFormOptions, PayFormValues, SavedCardOffer } from './view.js';

export { formatMoney };
export type { ApmChoice, OrderSummary, PayFormOptions, PayFormValues, SavedCardChoice, SavedCardOffer } from './view.js';

/** Longest wait for the optimise answer before the page is shown without the APM list. */
export const OPTIMISE_WAIT_MS = 3000;

export function orderSummary(order: Order, data: PayOrderData, translator?: Translator): OrderSummary {
  const lang = translator?.locale ?? 'en';
  const money = (minor: number): string => formatMoney(minor, order.currency, lang);
  return {
    orderNo: order.orderNo,
    lang,
    t: translator?.t ?? ((key: string) => key),
    amountText: money(order.amount),
    items: data.items.map((item) => ({
      name: item.name,
      quantity: item.quantity,
      unitPriceText: money(item.unitPrice),
      totalText: money(item.unitPrice * item.quantity),
    })),
  };
}

const csrfInstances = new WeakMap<KitContext, Csrf>();

/**
 * The pay routes' CSRF instance, shared by the pay page and `payFormLocals` (a shop's own page
 * embedding the form), so both issue fields the POST route accepts. The cookie path is the
 * mount point's public path, so it is right from any shop page.
 */
export function payCsrf(ctx: KitContext): Csrf {
  let csrf = csrfInstances.get(ctx);
  if (!csrf) {
    const path = new URL(ctx.options.publicUrl).pathname.replace(/\/+$/, '') || '/';
    csrf = createCsrf({ secrets: ctx.options.tokenSecrets, cookiePath: () => path });
    csrfInstances.set(ctx, csrf);
  }
  return csrf;
}

/** The APMs the gateway offers this shopper, best acceptance first; null when unavailable. */
export async function loadApms(ctx: KitContext, req: Request, order: Order, data: PayOrderData): Promise<ApmChoice[] | null> {
  try {
    const query = {
      amount: order.amount,
      currency: order.currency,
      shopper: { ...data.shopper, ip: normaliseIp(req.ip) },
      country: data.billing?.country,
      platform: deviceTypeOf(req.get('user-agent') ?? '') === 'MOBILE' ? ('MOBILE' as const) : ('WEB' as const),
    };
    const result = await ctx.client.optimise(optimiseInput(query), { timeoutMs: OPTIMISE_WAIT_MS });
    // The client ranks them, highest acceptance rate first.
    return result.paymentMethods.map((m) => ({ value: m.paymentMethod, name: m.name ?? m.paymentMethod, needsPerson: needsPersonData(m.paymentMethod) }));
  } catch (error) {
    ctx.logger.warn({ orderId: order.id, orderNo: order.orderNo, error }, 'Payment methods unavailable; the pay page offers the other methods');
    return null;
  }
}

export interface PayFormState {
  values?: PayFormValues;
  /** English messages by field, as the form's checks give them; shown translated. */
  errors?: Record<string, string>;
}

/** The shopper's last method first, so the form they used is the one they see again. */
function withFirst(methods: PaymentMethodKind[], first: string | undefined): PaymentMethodKind[] {
  const chosen = methods.find((m) => m === first);
  return chosen === undefined ? methods : [chosen, ...methods.filter((m) => m !== chosen)];
}

/**
 * Everything `+checkoutOrderSummary(order)` and `+checkoutPayForm(order, form)` need for one
 * order; sets the CSRF cookie on `res`. The card number, CVV and expiry are never part of it.
 */
export async function payFormLocals(
  ctx: KitContext,
  req: Request,
  res: Response,
  order: Order,
  state: PayFormState = {},
): Promise<{ order: OrderSummary; form: PayFormOptions }> {
  const data = payOrderData(order);
  const translator = useOrderLocale(req, res, order);
  const methods = allowedMethods(ctx, data);
  const apms = methods.includes('apm') ? await loadApms(ctx, req, order, data) : [];
  const csrf = payCsrf(ctx);
  const shown = withFirst(apms === null || apms.length === 0 ? methods.filter((m) => m !== 'apm' || apms === null) : methods, state.values?.method);
  const errors = Object.fromEntries(Object.entries(state.errors ?? {}).map(([field, message]) => [field, translator.fieldError(field, message)]));
  return {
    order: orderSummary(order, data, translator),
    form: {
      action: ctx.urls.pay(order.id),
      csrfField: csrf.fieldName,
      csrfToken: csrf.issue(req, res, order.id),
      methods: shown,
      apms: apms ?? [],
      apmUnavailable: apms === null,
      values: {
        first_name: data.shopper.firstName ?? data.billing?.firstName,
        last_name: data.shopper.lastName ?? data.billing?.lastName,
        // The payer data the shop already gave, so the shopper only checks it.
        person_document_type: data.person?.documentType,
        person_document_number: data.person?.documentNumber ?? data.shopper.document,
        person_birth_date: data.person?.birthDate ?? data.shopper.birthDate,
        ...state.values,
      },
      errors,
      deviceFields: DEVICE_FIELD_NAMES,
      lang: translator.locale,
      t: translator.t,
      focusErrors: Object.keys(errors).length > 0,
      savedCards: await savedCardOffer(ctx, req, order, data),
    },
  };
}

const BRAND_NAMES: Readonly<Record<CardBrand, string>> = {
  visa: 'Visa', mastercard: 'Mastercard', amex: 'American Express', discover: 'Discover', jcb: 'JCB',
  diners: 'Diners Club', maestro: 'Maestro', unionpay: 'UnionPay', card: 'Card',
};

/** Query flag the removal route sends the shopper back with. */
export const REMOVED_FLAG = 'saved_card_removed';

/** What the pay page offers: the shopper's unexpired saved cards and whether a card may be saved. */
export async function savedCardOffer(ctx: KitContext, req: Request, order: Order, data: PayOrderData): Promise<SavedCardOffer> {
  const removed = req.method === 'GET' && req.query[REMOVED_FLAG] === '1';
  const none: SavedCardOffer = { canSave: false, cards: [], removed: false };
  const store = savedCardsFor(ctx, data);
  if (store === null) return none;
  try {
    const now = new Date();
    const cards = (await store.list(data.shopper.id)).filter((c) => !savedCardExpired(c, now));
    return {
      canSave: true,
      removed,
      cards: cards.map((c) => ({
        id: c.id,
        brand: BRAND_NAMES[c.brand],
        last4: c.last4,
        expiry: `${String(c.expiryMonth).padStart(2, '0')}/${String(c.expiryYear % 100).padStart(2, '0')}`,
        removeAction: `${ctx.urls.pay(order.id)}/saved-cards/${encodeURIComponent(c.id)}/remove`,
      })),
    };
  } catch (error) {
    // The other ways to pay still work without the list.
    ctx.logger.warn({ orderId: order.id, error }, 'Saved cards unavailable; the pay page offers none');
    return none;
  }
}
