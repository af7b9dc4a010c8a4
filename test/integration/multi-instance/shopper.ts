/**
 * A shopper whose requests may land on any shop instance, as behind a load balancer: one cookie
 * jar for the shop (every instance serves the same site) and one for the gateway, redirects
 * followed, and forms submitted either where they point or to another instance (`via`).
 */
import { Browser, formFields, type Form, type Page } from '../../helpers/browser.js';

export interface SubmitOptions {
  /** Send the form to this origin instead of the one in its action (another instance). */
  via?: string;
  /** Field values typed by the shopper. */
  fill?: Record<string, string>;
  /** The button pressed. */
  button?: { name: string; value: string };
}

export class Shopper {
  readonly #browser: Browser;

  /**
   * `siteOf` names the cookie jar of a URL: the shop's instances share one. `headers` go with
   * every request (e.g. the X-Forwarded-For a load balancer adds).
   */
  constructor(siteOf: (url: URL) => string, headers: Record<string, string> = {}) {
    this.#browser = new Browser({ siteOf, headers });
  }

  get(url: string): Promise<Page> {
    return this.#browser.get(url);
  }

  submit(form: Form, options: SubmitOptions = {}): Promise<Page> {
    const target = new URL(form.action);
    if (options.via !== undefined) {
      const via = new URL(options.via);
      target.protocol = via.protocol;
      target.host = via.host;
    }
    return this.#browser.send(form, formFields(form, options.fill, options.button), target.toString());
  }
}
