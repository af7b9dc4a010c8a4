/**
 * What an endpoint answers, as a value: faults (malformed reply, timeout, reset) act on it
 * before it is written, and errors carry the gateway's `{code, source, message}` body.
 */
import type { ServerResponse } from 'node:http';
import type { Response } from 'express';
import { ERROR_CODES } from './wire/codes.js';

export interface Reply {
  status: number;
  contentType: string;
  body: string;
  headers?: Record<string, string>;
}

/** An answer other than 200: HTTP status plus the gateway error body. */
export class SandboxHttpError extends Error {
  readonly status: number;
  readonly code: string;
  readonly source: string;
  constructor(status: number, code: string, source: string, message: string) {
    super(message);
    this.name = 'SandboxHttpError';
    this.status = status;
    this.code = code;
    this.source = source;
  }
}

export const badInput = (source: string, message: string): SandboxHttpError =>
  new SandboxHttpError(400, ERROR_CODES.invalidInput, source, message);

export function jsonReply(value: unknown, status = 200): Reply {
  return { status, contentType: 'application/json; charset=utf-8', body: JSON.stringify(value) };
}

export function xmlReply(xml: string): Reply {
  return { status: 200, contentType: 'application/xml; charset=utf-8', body: xml };
}

export function errorReply(error: SandboxHttpError): Reply {
  return jsonReply({ code: error.code, source: error.source, message: error.message }, error.status);
}

/** A page or control answer through Express's res.send (which adds an ETag). */
export function sendReply(res: Response, reply: Reply): void {
  res.status(reply.status);
  res.setHeader('Content-Type', reply.contentType);
  res.setHeader('Cache-Control', 'no-store');
  for (const [name, value] of Object.entries(reply.headers ?? {})) res.setHeader(name, value);
  res.send(reply.body);
}

/**
 * An API answer (/v1) on a node response, Express's or not: what res.send would write, header for
 * header, minus its ETag. The answers are no-store, so no client can revalidate with one, and
 * hashing every body for it cost more than writing it.
 */
export function writeReply(res: ServerResponse, reply: Reply): void {
  // Set first, as the Express app's middleware does: the listener's fast path serves /v1 without it.
  res.setHeader('X-Content-Type-Options', 'nosniff');
  const headers: Record<string, string | number> = { 'Content-Type': reply.contentType, 'Cache-Control': 'no-store' };
  if (reply.headers !== undefined) Object.assign(headers, reply.headers);
  headers['Content-Length'] = Buffer.byteLength(reply.body, 'utf8');
  res.writeHead(reply.status, headers);
  res.end(reply.body, 'utf8');
}

/** A string field of a parsed body, '' when absent or not a string or number. */
export function str(fields: Readonly<Record<string, unknown>>, name: string): string {
  const value = fields[name];
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return '';
}

/** A route parameter as one string ('' when absent). */
export function param(req: { params: Record<string, string | string[] | undefined> }, name: string): string {
  const value = req.params[name];
  return typeof value === 'string' ? value : '';
}
