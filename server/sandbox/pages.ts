/**
 * HTML pages of the sandbox (issuer pages, hosted card page, checkout reply, inspector). Pug
 * templates are compiled once when the sandbox is created. Every page carries a strict CSP with
 * a per-request nonce and a form-action list of exactly the origins the page posts to.
 */
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { createCatalogue, type Catalogue } from '../i18n/catalogue.js';
import { packageFile } from '../package-files.js';
import { compilePugViews, type View } from '../pug-views.js';
import type { Reply } from './http.js';

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

  render(name: TemplateName, locals: Record<string, unknown>, options: PageOptions = {}): Reply {
    const nonce = randomBytes(16).toString('base64');
    return {
      status: options.status ?? 200,
      contentType: 'text/html; charset=utf-8',
      body: this.#templates[name]({ ...locals, ...languageOf(locals.lang), nonce }),
      headers: {
        'Content-Security-Policy': contentSecurityPolicy(nonce, options.formTargets ?? []),
        'Referrer-Policy': 'no-referrer',
        'X-Content-Type-Options': 'nosniff',
        'X-Frame-Options': 'DENY',
      },
    };
  }

  /** A page that POSTs `fields` to `action` at once (script) or on a click (noscript). */
  autosubmit(action: string, fields: Record<string, string>, text: { title: string; message: string }, status = 200): Reply {
    return this.render('autosubmit', { action, fields: Object.entries(fields), ...text }, { status, formTargets: [action] });
  }

  message(title: string, message: string, status = 200): Reply {
    return this.render('message', { title, message }, { status });
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
