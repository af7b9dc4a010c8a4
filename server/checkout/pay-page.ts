/**
 * The pay page's locals: the order summary (amounts formatted from minor units), the method
 * forms, the APM list from the gateway's optimise operation (left out when it fails or is
 * slow, so the other methods still work), the CSRF field and the device-data inputs.
 * `payFormLocals` is exported so a shop can render `+checkoutPayForm` in its own page.
 */
import { randomUUID } from 'node:crypto';
import type { Request, Response } from 'express';
import { currencyExponent, toWireAmount } from '../gateway/money.js';
import type { Order, PaymentMethodKind } from '../orders/types.js';
import type { KitContext } from './context.js';
import { DEVICE_FIELD_NAMES, normaliseIp } from './device.js';
import { deviceTypeOf } from './device-ua.js';
import { allowedMethods, payOrderData, type PayOrderData } from './pay-request.js';
import { payCsrf } from './pay-security.js';

/** Longest wait for the optimise answer before the page is shown without the APM list. */
export const OPTIMISE_WAIT_MS = 3000;

export interface OrderSummary {
  orderNo: string;
  amountText: string;
  items: { name: string; quantity: number; unitPriceText: string; totalText: string }[];
}

export interface ApmChoice {
  value: string;
  name: string;
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
  values: { first_name?: string; last_name?: string; payment_method?: string };
  errors: Record<string, string>;
  deviceFields: readonly string[];
}

/** 1050 USD → "$10.50"; exact (string arithmetic), with the currency's own decimals. */
export function formatMoney(minor: number, currency: string, locale = 'en'): string {
  const exponent = currencyExponent(currency);
  const decimal = toWireAmount(minor, currency) as `${number}`;
  try {
    return new Intl.NumberFormat(locale, {
      style: 'currency',
      currency,
      minimumFractionDigits: exponent,
      maximumFractionDigits: exponent,
    }).format(decimal);
  } catch {
    return `${decimal} ${currency}`;
  }
}

export function orderSummary(order: Order, data: PayOrderData): OrderSummary {
  return {
    orderNo: order.orderNo,
    amountText: formatMoney(order.amount, order.currency),
    items: data.items.map((item) => ({
      name: item.name,
      quantity: item.quantity,
      unitPriceText: formatMoney(item.unitPrice, order.currency),
      totalText: formatMoney(item.unitPrice * item.quantity, order.currency),
    })),
  };
}

/** The APMs the gateway offers this shopper, best acceptance first; null when unavailable. */
export async function loadApms(ctx: KitContext, req: Request, order: Order, data: PayOrderData): Promise<ApmChoice[] | null> {
  try {
    const result = await ctx.client.optimise(
      {
        request_id: randomUUID(),
        amount: order.amount,
        currency: order.currency,
        shopper_id: data.shopper.id,
        shopper_email: data.shopper.email,
        shopper_ip: normaliseIp(req.ip).slice(0, 50) || undefined,
        shopper_country: data.billing?.country,
        shopper_level: data.shopper.level,
        platform: deviceTypeOf(req.get('user-agent') ?? '') === 'MOBILE' ? 'MOBILE' : 'WEB',
      },
      { timeoutMs: OPTIMISE_WAIT_MS },
    );
    // The client ranks them, highest acceptance rate first.
    return result.paymentMethods.map((m) => ({ value: m.paymentMethod, name: m.name ?? m.paymentMethod }));
  } catch (error) {
    ctx.logger.warn({ orderId: order.id, orderNo: order.orderNo, error }, 'Payment methods unavailable; the pay page offers the other methods');
    return null;
  }
}

export interface PayFormState {
  values?: PayFormOptions['values'];
  errors?: Record<string, string>;
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
  const methods = allowedMethods(ctx, data);
  const apms = methods.includes('apm') ? await loadApms(ctx, req, order, data) : [];
  const csrf = payCsrf(ctx);
  const shown = apms === null || apms.length === 0 ? methods.filter((m) => m !== 'apm' || apms === null) : methods;
  return {
    order: orderSummary(order, data),
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
        ...state.values,
      },
      errors: state.errors ?? {},
      deviceFields: DEVICE_FIELD_NAMES,
    },
  };
}
