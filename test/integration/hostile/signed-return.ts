/**
 * Shopper journeys the hostile tests start from: a declined card, and what a shopper holds after
 * 3-D Secure (the gateway's signed return fields, which verify as a notification: the signature
 * covers seven fields only), and posting to /notify as anyone could.
 */
import { postForm } from './support.js';
import { Browser, CARD, cardFields, onlyForm, payForm, paymentInput, type Harness, type Page } from '../checkout/journeys-harness.js';

/** Pays with the challenge card and decides the challenge; answers the result page and the signed fields posted back. */
export async function challenged(h: Harness, orderNo: string, decision: 'pass' | 'fail'): Promise<{ browser: Browser; result: Page; returned: Record<string, string> }> {
  const { payUrl } = await h.kit.createPayment(paymentInput(orderNo));
  const browser = new Browser();
  const page = await browser.get(payUrl);
  const toIssuer = await browser.submit(page, payForm(page, 'card'), cardFields(CARD.challenge));
  const challenge = await browser.submit(toIssuer, onlyForm(toIssuer));
  const back = await browser.submit(challenge, onlyForm(challenge), {}, { name: 'decision', value: decision });
  const returned = { ...onlyForm(back).fields };
  const result = await browser.submit(back, onlyForm(back));
  await h.sandbox.notifier.flush();
  return { browser, result, returned };
}

/** Pays a new order with the declined card, as a shopper would, once the sandbox's notifications are in. */
export async function declinedPayment(h: Harness, orderNo: string): Promise<{ browser: Browser; result: Page }> {
  const { payUrl } = await h.kit.createPayment(paymentInput(orderNo));
  const browser = new Browser();
  const page = await browser.get(payUrl);
  const result = await browser.submit(page, payForm(page, 'card'), cardFields(CARD.decline));
  await h.sandbox.notifier.flush();
  return { browser, result };
}

/** Posts fields to the shop's notify URL as anyone could; answers the status. */
export const post = (h: Harness, fields: Record<string, string>): Promise<number> => postForm(`${h.shopUrl}/checkout/notify`, fields);
