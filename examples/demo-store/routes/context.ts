/** What the shop's route modules share. */
import type { CheckoutKit, Logger } from '../../../server/index.js';
import type { SignedCookies } from '../cookies.js';
import type { Render } from '../views.js';

/** Where the kit's staff admin (and its sign-in page, `/admin/login`) is mounted. */
export const ADMIN_PATH = '/admin';

export interface ShopContext {
  kit: CheckoutKit;
  cookies: SignedCookies;
  render: Render;
  logger: Logger;
  /** Origin of the gateway (the APM answer redirects the browser there). */
  gatewayUrl: string;
}
