/**
 * Hosted payment page (the default): the browser posts the signed request to
 * `{baseUrl}/v1/checkout` and the gateway's pages take the card, so card data never touches the
 * shop. The order is `pending` from here on; return, notify or the sweeper settle it.
 */
import type { CheckoutForm } from '../gateway/operations/payments.js';
import type { PayFlow } from './pay-flow.js';
import { seeOtherNoStore } from '../http/no-store.js';

/** `form` was built (and validated) before the order was marked submitted. */
export function payOnHostedPage(flow: PayFlow, form: CheckoutForm): void {
  const { ctx, order, pages, req, res } = flow;
  const shown = pages.redirectPost(req, res, {
    action: form.action,
    fields: form.fields,
    heading: 'Taking you to the secure payment page…',
    message: 'You will enter your card details on the payment provider\'s page. If nothing happens, select Continue.',
  });
  if (!shown) {
    ctx.logger.error({ orderId: order.id, orderNo: order.orderNo }, 'The hosted page address is not an http(s) URL');
    seeOtherNoStore(res, ctx.urls.result(order.id));
  }
}
