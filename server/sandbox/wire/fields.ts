/**
 * Field shapes the sandbox checks requests against, written from the interface's "Formats"
 * table and the length limits of gateway-notes §1. Unknown fields are ignored, as a gateway
 * that grows new fields would.
 */
import { z } from 'zod';

export const t = (max: number): z.ZodString => z.string().max(max);
export const opt = <T extends z.ZodType>(schema: T): z.ZodOptional<T> => schema.optional();

export const decimal = z.string().max(15).regex(/^\d{1,15}(\.\d{1,4})?$/, 'must be a decimal amount like "10.00"');
export const digits = z.string().max(15).regex(/^\d{1,15}$/, 'must be a string of digits, e.g. "10000"');
export const currency = z.string().regex(/^[A-Z]{3}$/, 'must be a three-letter currency code');
export const country = z.string().regex(/^[A-Z]{2}$/, 'must be a two-letter country code');
export const day = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be YYYY-MM-DD');
export const httpUrl = z.string().max(2000).regex(/^https?:\/\/\S+$/i, 'must be an http(s) URL');
export const emailAddress = t(100).regex(/^[^\s@]+@[^\s@]+$/, 'must be an email address');
export const signature = z.string().regex(/^[0-9a-fA-F]{64}$/, 'must be 64 hexadecimal characters');

/** What every request carries (interface "Authentication"). */
export const identity = {
  merchant_id: z.string().min(1).max(7),
  account_id: z.string().min(1).max(10),
  encryption_data: signature,
};

/** A nested value: as is in a JSON body, as JSON text in a form field. */
export const nested = <T extends z.ZodType>(schema: T) =>
  z.preprocess((value) => {
    if (typeof value !== 'string') return value;
    try {
      return JSON.parse(value) as unknown;
    } catch {
      return value;
    }
  }, schema);

export interface Issue {
  field: string;
  message: string;
}

/** zod issues as `{ field, message }`, paths dotted with [i] indexes; values are never quoted. */
export function issuesOf(error: z.ZodError): Issue[] {
  return error.issues.map((issue) => {
    let field = '';
    for (const part of issue.path) field += typeof part === 'number' ? `[${part}]` : field === '' ? String(part) : `.${String(part)}`;
    return { field: field === '' ? '(input)' : field, message: issue.message };
  });
}
