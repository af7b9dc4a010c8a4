/**
 * The pay flow's own pages besides the form: the auto-submitting POST page (3-D Secure issuer,
 * hosted payment page) and the error page. Both need `cspMiddleware` to have run. Headings and
 * messages are written in English in the code and shown in the shopper's language.
 */
import type { Request, Response } from 'express';
import { compileView, sendPage, translatorOf } from './render.js';
import { allowFormAction } from '../http/csp.js';

export interface RedirectPost {
  /** Absolute http(s) URL the browser POSTs to. */
  action: string;
  fields: Readonly<Record<string, string>>;
  heading?: string;
  message?: string;
}

export interface ErrorPage {
  heading: string;
  message: string;
  link?: { href: string; text: string };
}

export interface PayPages {
  /**
   * Renders the auto-submitting form; this response's form-action becomes 'self' plus the
   * action's origin only. Returns false (nothing sent) when the action is not an absolute http(s) URL.
   */
  redirectPost(req: Request, res: Response, page: RedirectPost): boolean;
  error(req: Request, res: Response, status: number, page: ErrorPage): void;
}

/** Compiles the views once; call at router creation. */
export function createPayPages(): PayPages {
  const redirectView = compileView('redirect-post');
  const errorView = compileView('error');
  return {
    redirectPost(req, res, page) {
      if (!allowFormAction(req, res, page.action, { only: true })) return false;
      const { t, text } = translatorOf(req, res);
      const fields = Object.keys(page.fields).map((name) => ({ name, value: page.fields[name] }));
      sendPage(req, res, redirectView, {
        title: page.heading === undefined ? t('redirect.title') : text(page.heading),
        heading: page.heading === undefined ? t('redirect.heading') : text(page.heading),
        message: page.message === undefined ? t('redirect.message') : text(page.message),
        action: page.action,
        fields,
      });
      return true;
    },
    error(req, res, status, page) {
      const { text } = translatorOf(req, res);
      const heading = text(page.heading);
      const link = page.link === undefined ? undefined : { href: page.link.href, text: text(page.link.text) };
      sendPage(req, res, errorView, { title: heading, heading, message: text(page.message), link }, status);
    },
  };
}
