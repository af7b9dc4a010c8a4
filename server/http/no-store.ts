/**
 * The kit's answers that no cache may keep (pages and redirects carry tokens, notify answers are
 * per call), written directly: res.send would hash every body for an ETag no client can use and
 * sniff its type first, and res.redirect negotiates a body no browser shows, which cost a
 * measurable share of each request.
 */
import type { Response } from 'express';

export function sendNoStore(res: Response, status: number, contentType: 'text/html; charset=utf-8' | 'text/plain; charset=utf-8', body: string): void {
  res.statusCode = status;
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Type', contentType);
  res.setHeader('Content-Length', Buffer.byteLength(body));
  res.end(body);
}

/** 303 See Other to `url` (encoded as res.location does), with no body. */
export function seeOtherNoStore(res: Response, url: string): void {
  res.location(url);
  res.statusCode = 303;
  res.setHeader('Cache-Control', 'no-store');
  res.setHeader('Content-Length', 0);
  res.end();
}
