/**
 * HTML pages of the sandbox (issuer pages, hosted card page, checkout reply, inspector). Pug
 * templates are compiled once when the sandbox is created. Every page carries a strict CSP with
 * a per-request nonce and a form-action list of exactly the origins the page posts to.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createCatalogue, type Catalogue, type Vars } from '../i18n/catalogue.js';
import { packageFile } from '../package-files.js';
import { compilePugViews, type View } from '../pug-views.js';
import type { Reply } from './http.js';
import { decimalAmount } from './wire/format.js';

export const TEMPLATES = ['autosubmit', 'issuer-3ds', 'issuer-apm', 'hosted-card', 'message', 'inspector'] as const;
export type TemplateName = (typeof TEMPLATES)[number];
/** The pages a shopper sees (the inspector is the developer's, in English). */
export const SANDBOX_SHOPPER_PAGES = ['autosubmit', 'issuer-3ds', 'issuer-apm', 'hosted-card', 'message'] as const;

let catalogue: Catalogue | undefined;
/** The kit's catalogue (its `sandbox.*` strings): issuer and hosted pages speak the shopper's language. */
function sandboxCatalogue(): Catalogue {
  catalogue ??= createCatalogue();
  return catalogue;
}

/** A sandbox page compiled once (tests render them directly). */
export function compileSandboxPage(name: TemplateName): View {
  return compilePugViews(findViewsDir(), TEMPLATES)[name];
}

/** views/sandbox of the package. */
export function findViewsDir(): string {
  return packageFile(join('views', 'sandbox'));
}

/** The origin of an absolute http(s) URL, or null; only origins reach the CSP header. */
export function originOf(url: string): string | null {
  try {
    const parsed = new URL(url);
    return parsed.protocol === 'http:' || parsed.protocol === 'https:' ? parsed.origin : null;
  } catch {
    return null;
  }
}

/**
 * form-action lists exactly the origins the page's forms post to: 'self' for relative targets,
 * 'none' when the page has no form.
 */
export function contentSecurityPolicy(nonce: string, formTargets: readonly string[]): string {
  const sources = new Set<string>();
  for (const target of formTargets) {
    if (target.startsWith('/') && !target.startsWith('//')) sources.add("'self'");
    else {
      const origin = originOf(target);
      if (origin !== null) sources.add(origin);
    }
  }
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src 'nonce-${nonce}'`,
    "img-src 'self' data:",
    `form-action ${sources.size === 0 ? "'none'" : [...sources].join(' ')}`,
    "frame-ancestors 'none'",
    "base-uri 'none'",
  ].join('; ');
}

/** A string of the catalogue, translated when the page is rendered in the shopper's language. */
export interface PageText {
  key: string;
  vars?: Vars;
}

function isPageText(value: unknown): value is PageText {
  return typeof value === 'object' && value !== null && typeof (value as { key?: unknown }).key === 'string';
}

/**
 * The shopper's language: the merchant's `default_lang` for the payment when the catalogue has it,
 * else the browser's Accept-Language, else English.
 */
export function shopperLocale(defaultLang: string | undefined, acceptLanguage: string | undefined): string {
  const cat = sandboxCatalogue();
  return cat.pick([defaultLang], acceptLanguage);
}

/**
 * An amount for a shopper page, with Intl for the locale ("€ 30,00" in Dutch), from the
 * sandbox's own decimal reading of the minor units (the sandbox shares no money code with the
 * kit's client); an unknown currency reads "30.00 XYZ".
 */
export function pageAmount(minor: number, currency: string, locale: string): string {
  const decimal = decimalAmount(minor, currency);
  const digits = decimal.split('.')[1]?.length ?? 0;
  try {
    return new Intl.NumberFormat(locale, { style: 'currency', currency, minimumFractionDigits: digits, maximumFractionDigits: digits }).format(decimal as `${number}`);
  } catch {
    return `${decimal} ${currency}`;
  }
}

export interface PageOptions {
  status?: number;
  /** Absolute or relative URLs the page's forms post to. */
  formTargets?: readonly string[];
}

export class Pages {
  readonly #templates: Record<TemplateName, View>;

  constructor(viewsDir: string = findViewsDir()) {
    this.#templates = compilePugViews(viewsDir, TEMPLATES);
  }

  /** Renders a page; locals that are PageText (title, message, error…) are translated first. */
  render(name: TemplateName, locals: Record<string, unknown>, options: PageOptions = {}): Reply {
    const nonce = randomBytes(16).toString('base64');
    const language = languageOf(locals.lang);
    const translated = Object.fromEntries(
      Object.entries(locals).map(([k, v]) => [k, isPageText(v) ? language.t(v.key, v.vars) : v]),
    );
    return {
      status: options.status ?? 200,
      contentType: 'text/html; charset=utf-8',
      body: this.#templates[name]({ ...translated, ...language, nonce }),
      headers: {
        'Content-Security-Policy': contentSecurityPolicy(nonce, options.formTargets ?? []),
        'Referrer-Policy': 'no-referrer',
        'X-Content-Type-Options': 'nosniff',
        'X-Frame-Options': 'DENY',
      },
    };
  }

  /**
   * A page that POSTs `fields` to `action` at once (script) or on a click (noscript), in `lang`
   * (a locale or an Accept-Language value).
   */
  autosubmit(action: string, fields: Record<string, string>, text: { title: PageText; message: PageText; lang: string | undefined }, status = 200): Reply {
    return this.render('autosubmit', { action, fields: Object.entries(fields), ...text }, { status, formTargets: [action] });
  }

  /** A message page; `note` is a further sentence, `detail` is shown as it is (a technical reason, in English). */
  message(text: { title: PageText | string; message: PageText | string; lang: string | undefined; note?: PageText; detail?: string }, status = 200): Reply {
    return this.render('message', text, { status });
  }
}

/**
 * `lang` in a page's locals is what the shopper asked for (the hosted request's `default_lang`,
 * or the browser's Accept-Language); the page gets the closest language the catalogue has.
 */
function languageOf(requested: unknown): { lang: string; t: (key: string, vars?: Record<string, string | number>) => string } {
  const cat = sandboxCatalogue();
  const tr = cat.translator(cat.pick([], typeof requested === 'string' ? requested : ''));
  return { lang: tr.locale, t: tr.t };
}
