/**
 * What a shopper and a staff member do in the demo store, as small steps the journeys compose:
 * fill the cart, check out, pay by card, APM or the hosted page, and sign in to the admin.
 * Waits are on what the page shows or on the stored state, never on the clock.
 */
import type { Browser, Page } from 'playwright-core';
import type { Order, OrderState } from '../../server/index.js';
import { newShopper, type PageProblem, type StoreUnderTest } from './harness.js';

export const APPROVE_CARD = '4242424242424242';
export const CHALLENGE_CARD = '4000000000003220';
export const EXPIRY = { month: '12', year: String(new Date().getUTCFullYear() + 3) };

export interface CheckoutDetails {
  method: 'card' | 'apm' | 'hosted';
  email?: string;
  country?: string;
}

export async function addToCart(page: Page, store: StoreUnderTest, sku: string, quantity = 1): Promise<void> {
  await page.goto(`${store.url}/products/${sku}`);
  await page.selectOption('#quantity', String(quantity));
  await page.getByRole('button', { name: 'Add to cart' }).click();
  await page.waitForURL(`${store.url}/cart`);
}

/** Fills the shop's checkout form and submits it; returns the new order's id (from the pay page URL). */
export async function checkout(page: Page, store: StoreUnderTest, details: CheckoutDetails): Promise<string> {
  await page.goto(`${store.url}/cart/checkout`);
  await page.fill('#email', details.email ?? 'ada@example.com');
  await page.fill('#first_name', 'Ada');
  await page.fill('#last_name', 'Lovelace');
  await page.fill('#address', 'Keizersgracht 1');
  await page.fill('#postal_code', '1015 CJ');
  await page.fill('#city', 'Amsterdam');
  await page.selectOption('#country', details.country ?? 'NL');
  await page.check(`#method-${details.method}`);
  await page.getByRole('button', { name: /Continue to payment/ }).click();
  await page.waitForURL(/\/orders\/[0-9a-f-]{36}\/pay$/);
  const match = /\/orders\/([0-9a-f-]{36})\/pay$/.exec(page.url());
  if (match?.[1] === undefined) throw new Error(`not on a pay page: ${page.url()}`);
  return match[1];
}

export async function fillCard(page: Page, card: string): Promise<void> {
  await page.fill('#card', card);
  await page.fill('#expiration_month', EXPIRY.month);
  await page.fill('#expiration_year', EXPIRY.year);
  await page.fill('#security_code', '123');
}

/** Types the card on the shop's pay page and pays. */
export async function payByCard(page: Page, card: string): Promise<void> {
  await fillCard(page, card);
  await page.getByRole('button', { name: /^Pay / }).click();
}

/** The order page's main heading once it contains `text` (the page refreshes itself meanwhile). */
export async function waitForHeading(page: Page, text: string | RegExp): Promise<string> {
  const heading = page.locator('h1', { hasText: text });
  await heading.waitFor({ timeout: 20_000 });
  return (await heading.textContent()) ?? '';
}

/** Polls the stored order until it reaches one of `states`. */
export async function waitForState(store: StoreUnderTest, orderId: string, states: readonly OrderState[]): Promise<Order> {
  for (let i = 0; i < 200; i++) {
    const order = await store.store.kit.store.get(orderId);
    if (order !== null && states.includes(order.state)) return order;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const last = await store.store.kit.store.get(orderId);
  throw new Error(`order ${orderId} stayed ${last?.state ?? 'missing'}, expected ${states.join(' or ')}`);
}

/** Adds one product and buys it with a card that needs no challenge; returns the order id. */
export async function buyWithCard(page: Page, store: StoreUnderTest, sku = 'MUG-STONE', quantity = 1): Promise<string> {
  await addToCart(page, store, sku, quantity);
  const orderId = await checkout(page, store, { method: 'card' });
  await payByCard(page, APPROVE_CARD);
  await page.waitForURL(/\/checkout\/result\//);
  return orderId;
}

export async function signInAsStaff(page: Page, store: StoreUnderTest): Promise<void> {
  await page.goto(`${store.url}/admin/`);
  await page.waitForURL(`${store.url}/admin/login`);
  await page.fill('#user', store.store.adminLogin.user);
  await page.fill('#password', store.store.adminLogin.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.waitForURL(`${store.url}/admin/`);
}

export async function openAdminOrder(page: Page, store: StoreUnderTest, orderId: string): Promise<void> {
  await page.goto(`${store.url}/admin/orders/${orderId}`);
}

/** The admin's flash message after an action. */
export async function flashText(page: Page): Promise<string> {
  const flash = page.locator('p.flash');
  await flash.waitFor();
  return (await flash.textContent()) ?? '';
}

/** What staff see on the admin's page for the order: the facts list (state, amounts, card…). */
export async function staffView(browser: Browser, store: StoreUnderTest, orderId: string): Promise<{ facts: string; problems: PageProblem[] }> {
  const staff = await newShopper(browser);
  await signInAsStaff(staff.page, store);
  await openAdminOrder(staff.page, store, orderId);
  const facts = (await staff.page.locator('dl.facts').textContent()) ?? '';
  const problems = [...staff.problems];
  await staff.close();
  return { facts, problems };
}
