/**
 * What the shopper's order page shows for an order: the state in words, the lines, the
 * addresses and, for a refused payment, the gateway's reason. While the payment is still open
 * the page refreshes itself (meta refresh: no script needed under the CSP).
 */
import { z } from 'zod';
import type { Order, OrderState } from '../../server/index.js';

export const REFRESH_SECONDS = 2;

const OPEN: readonly OrderState[] = ['created', 'pending', 'requires_action'];

const STATUS: Record<OrderState, { heading: string; text: string; tone: 'ok' | 'bad' | 'wait' | 'info' }> = {
  created: { heading: 'Confirming your payment…', text: 'We are waiting for the payment provider. This page updates by itself.', tone: 'wait' },
  pending: { heading: 'Confirming your payment…', text: 'We are waiting for the payment provider. Please do not pay again.', tone: 'wait' },
  requires_action: { heading: 'Confirming your payment…', text: 'We are waiting for your bank to confirm. Please do not pay again.', tone: 'wait' },
  paid: { heading: 'Thank you, your order is paid', text: 'We will send it to you soon.', tone: 'ok' },
  authorized: { heading: 'Thank you, your payment is authorised', text: 'The amount is reserved and will be taken when we ship your order.', tone: 'ok' },
  in_review: { heading: 'Your payment is being reviewed', text: 'We will let you know the outcome by e-mail. You do not need to pay again.', tone: 'info' },
  declined: { heading: 'Your payment was declined', text: 'No money was taken. You can place the order again with another card or method.', tone: 'bad' },
  failed: { heading: 'The payment failed', text: 'No money was taken. Please try again.', tone: 'bad' },
  cancelled: { heading: 'The payment was cancelled', text: 'No money was taken.', tone: 'bad' },
  expired: { heading: 'The payment was not completed in time', text: 'No money was taken.', tone: 'bad' },
  partially_refunded: { heading: 'Part of your payment was refunded', text: 'The refund reaches your account in a few days.', tone: 'info' },
  refunded: { heading: 'Your payment was refunded', text: 'The refund reaches your account in a few days.', tone: 'info' },
  chargeback: { heading: 'This payment is disputed', text: 'Your bank took the payment back. Please contact us.', tone: 'info' },
};

const NOT_PAID = { heading: 'Not paid yet', text: 'This order is waiting for your payment.', tone: 'info' as const };

const itemSchema = z.object({ name: z.string(), sku: z.string(), unitPrice: z.int(), quantity: z.int() });
const addressSchema = z.object({
  firstName: z.string().optional(),
  lastName: z.string().optional(),
  address: z.string().optional(),
  postalCode: z.string().optional(),
  city: z.string().optional(),
  country: z.string(),
});
const dataSchema = z.object({
  items: z.array(itemSchema).catch([]),
  shopper: z.object({ email: z.string() }).optional().catch(undefined),
  billing: addressSchema.optional().catch(undefined),
  delivery: addressSchema.optional().catch(undefined),
});

/** The order's lines as stored by createPayment. */
export function orderItems(order: Order): z.infer<typeof itemSchema>[] {
  return dataSchema.parse(order.data).items;
}

export function notYetPaid(order: Order): boolean {
  return order.state === 'created' && order.data.submittedAt === undefined && order.transactionId === null;
}

/** `reason`: the gateway's words for a refused payment (the kit's `refusalReason`). */
export function orderLocals(order: Order, reason: string | undefined): Record<string, unknown> {
  const data = dataSchema.parse(order.data);
  const unpaid = notYetPaid(order);
  return {
    order,
    status: unpaid ? NOT_PAID : STATUS[order.state],
    unpaid,
    reason,
    items: data.items,
    email: data.shopper?.email,
    billing: data.billing,
    delivery: data.delivery,
    refreshSeconds: !unpaid && OPEN.includes(order.state) ? REFRESH_SECONDS : undefined,
    canRetry: ['declined', 'failed', 'cancelled', 'expired'].includes(order.state),
  };
}

export function statusLabel(state: OrderState): string {
  return state === 'created' ? 'awaiting payment' : state.replace(/_/g, ' ');
}
