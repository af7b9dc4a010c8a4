/**
 * The shopper's journeys through real pages, as a browser walks them: direct card, 3-D Secure
 * challenge, and the hosted payment page. Each ends on the shop's result page (or wherever a
 * fault stopped it).
 */
import { CARD, cardFields } from '../../integration/checkout/journeys-harness.js';
import { rememberCard } from './card-scan.js';
import { firstForm, payForm, type Browser, type Page } from '../../helpers/browser.js';

export type Journey = 'direct' | '3ds' | 'hosted';

function fill(card: string): Record<string, string> {
  rememberCard(card);
  return cardFields(card);
}

/** Submits the only form of an auto-submitting page (what its script does). */
function autosubmit(browser: Browser, page: Page): Promise<Page> {
  return browser.submit(page, firstForm(page));
}

/** Card form on the shop's pay page; for the challenge card, passes 3-D Secure. */
export async function payWithCard(browser: Browser, payUrl: string, card: string): Promise<Page> {
  const pay = await browser.get(payUrl);
  const after = await browser.submit(pay, payForm(pay, 'card'), fill(card));
  if (card !== CARD.challenge || after.status !== 200 || !after.url.includes('/checkout/pay/')) return after;
  return passChallenge(browser, after);
}

/** From the shop's auto-submitting page to the issuer, "Pass authentication", back to the shop. */
export async function passChallenge(browser: Browser, redirect: Page): Promise<Page> {
  const issuer = await autosubmit(browser, redirect);
  const form = firstForm(issuer);
  const back = await browser.submit(issuer, form, {}, { name: 'decision', value: 'pass' });
  return back.status === 200 && back.html.includes('autosubmit') ? autosubmit(browser, back) : back;
}

/** The hosted page: shop form → gateway checkout → card page → back to the shop. */
export async function payOnHostedPage(browser: Browser, payUrl: string, card: string): Promise<Page> {
  const pay = await browser.get(payUrl);
  const toGateway = await browser.submit(pay, payForm(pay, 'hosted'));
  const checkout = await autosubmit(browser, toGateway);
  if (checkout.status !== 200) return checkout;
  const cardPage = await autosubmit(browser, checkout);
  if (cardPage.status !== 200) return cardPage;
  const paid = await browser.submit(cardPage, firstForm(cardPage), fill(card));
  if (paid.url.includes('/issuer/3ds/')) return passChallenge(browser, paid);
  return paid.status === 200 && paid.html.includes('autosubmit') ? autosubmit(browser, paid) : paid;
}

export function journey(kind: Journey, browser: Browser, payUrl: string, card: string = kind === '3ds' ? CARD.challenge : CARD.approve): Promise<Page> {
  if (kind === 'hosted') return payOnHostedPage(browser, payUrl, card);
  return payWithCard(browser, payUrl, card);
}
