/**
 * A router mounted somewhere other than `publicUrl` says sends shoppers to Express's bare
 * "Cannot GET /checkout/pay/…". The first request the router sees tells where it really is:
 * compare that with `publicUrl` once and log ERR_CONFIG_PUBLIC_URL with both when they differ.
 */
import type { Request } from 'express';
import { errorDocsLink } from '../errors.js';
import type { Logger } from '../logging.js';

export interface MountMismatch {
  expected: { path: string; host: string };
  actual: { path: string; host: string };
  fix: string;
}

/** What differs between `publicUrl` and where `req` reached the router, or null. */
export function mountMismatch(publicUrl: string, req: Pick<Request, 'baseUrl' | 'hostname'> & { headers: Request['headers'] }): MountMismatch | null {
  const url = new URL(publicUrl);
  const expectedPath = url.pathname.replace(/\/+$/, '');
  const actualPath = req.baseUrl.replace(/\/+$/, '');
  // The Host header as the browser sent it (a proxy may rewrite it; X-Forwarded-Host then says).
  const forwarded = req.headers['x-forwarded-host'];
  const actualHost = (typeof forwarded === 'string' && forwarded !== '' ? forwarded.split(',')[0]?.trim() : req.headers.host) ?? '';
  const pathDiffers = expectedPath !== actualPath;
  const hostDiffers = actualHost !== '' && actualHost.toLowerCase() !== url.host.toLowerCase();
  if (!pathDiffers && !hostDiffers) return null;
  const fix = pathDiffers
    ? `mount the router with app.use('${expectedPath || '/'}', kit.router), or set publicUrl to ${url.protocol}//${actualHost || url.host}${actualPath}`
    : `set publicUrl to the address browsers use (${url.protocol}//${actualHost}${expectedPath}), or, behind a proxy, forward the Host header`;
  return { expected: { path: expectedPath || '/', host: url.host }, actual: { path: actualPath || '/', host: actualHost }, fix };
}

/** Checks the first request it is given (later ones cost one comparison). */
export function mountChecker(publicUrl: string, logger: Logger): (req: Request) => void {
  let checked = false;
  return (req) => {
    if (!checked) {
      checked = true;
      const mismatch = mountMismatch(publicUrl, req);
      if (mismatch !== null) {
        logger.error(
          { code: 'ERR_CONFIG_PUBLIC_URL', publicUrl, expected: mismatch.expected, actual: mismatch.actual, fix: mismatch.fix, docs: errorDocsLink('ERR_CONFIG_PUBLIC_URL') },
          `ERR_CONFIG_PUBLIC_URL: the checkout router is mounted at ${mismatch.actual.host}${mismatch.actual.path} but publicUrl says ${mismatch.expected.host}${mismatch.expected.path}; ` +
            `shoppers will be sent where the router is not. Fix: ${mismatch.fix}`,
        );
      }
    }
  };
}
