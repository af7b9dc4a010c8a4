/**
 * Device and browser data for the gateway's risk engine and 3-D Secure.
 *
 * Browser fields come from hidden inputs that /assets/device.js fills. They are best effort: a
 * value that is missing or fails its bounded pattern is DROPPED (replaced by the server default
 * below), never a 400, so a shopper whose browser blocks scripts or sends odd values can still
 * pay. The dropped field names are returned so the caller can log them.
 *
 * Server fields come from the request: shopper_ip from `req.ip` (so Express's `trust proxy`
 * setting decides whether X-Forwarded-For counts), user_agent, accept, device_type from the
 * user agent, order_type WEB.
 */
import type { Request } from 'express';
import { z } from 'zod';
import { browserOf, deviceTypeOf, firstLanguage, osOf } from './device-ua.js';
import { compiled } from '../zod-compiled.js';

const token = (max: number) => z.string().trim().max(max).regex(/^[A-Za-z0-9_-]+$/);
const printable = (max: number) => z.string().trim().min(1).max(max).regex(/^[\x20-\x7E]+$/);

/** One bounded schema per browser field (wire names). */
export const DEVICE_FIELD_SCHEMAS = {
  os: printable(50),
  browser: printable(100),
  browser_lang: z.string().trim().max(35).regex(/^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8}){0,3}$/),
  /** Minutes from UTC as `Date#getTimezoneOffset` gives them (EMV 3-D Secure browserTZ): "-60". */
  time_zone: z.string().trim().regex(/^[+-]?\d{1,4}$/),
  /** Screen width x height in CSS pixels: "390x844". */
  resolution: z.string().trim().regex(/^\d{2,5}x\d{2,5}$/),
  color_depth: z.string().trim().regex(/^\d{1,2}$/),
  cookie_new: token(64),
  cookie_old: token(64),
  /** SHA-256 hex of stable browser traits. */
  device_fingerprint: z.string().trim().regex(/^[a-f0-9]{64}$/),
  session_id: token(64),
  /** EMV 3-D Secure challenge window: 01 250×400, 02 390×400, 03 500×600, 04 600×400, 05 full screen. */
  challenge_window_size: z.string().trim().regex(/^0[1-5]$/),
} as const;

export type DeviceFieldName = keyof typeof DEVICE_FIELD_SCHEMAS;
export const DEVICE_FIELD_NAMES = Object.keys(DEVICE_FIELD_SCHEMAS) as DeviceFieldName[];

/** The same rules as one object schema; invalid values become undefined instead of failing. */
export const deviceFormSchema = z.object(
  Object.fromEntries(DEVICE_FIELD_NAMES.map((name) => [name, DEVICE_FIELD_SCHEMAS[name].optional().catch(undefined)])) as {
    [K in DeviceFieldName]: z.ZodCatch<z.ZodOptional<(typeof DEVICE_FIELD_SCHEMAS)[K]>>;
  },
);

export type DeviceFormFields = Partial<Record<DeviceFieldName, string>>;

/** Reads the browser fields from a parsed form body; bad or missing values are left out. */
export function parseDeviceFields(body: unknown): { fields: DeviceFormFields; dropped: DeviceFieldName[] } {
  const source = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const fields: DeviceFormFields = {};
  const dropped: DeviceFieldName[] = [];
  for (const name of DEVICE_FIELD_NAMES) {
    const raw = source[name];
    if (raw === undefined || raw === '') continue;
    const parsed = compiled(DEVICE_FIELD_SCHEMAS[name]).safeParse(raw);
    if (parsed.success && parsed.data !== '') fields[name] = parsed.data;
    else dropped.push(name);
  }
  return { fields, dropped };
}

export interface ServerDeviceFields {
  shopper_ip: string;
  user_agent: string;
  accept: string;
  platform_source: string;
  device_type: 'PC' | 'MOBILE';
  order_type: 'WEB';
}

/** Sent as platform_source: the channel the payment was taken on. */
export const PLATFORM_SOURCE = 'WEB';

// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL_RE = /[\x00-\x1f\x7f]/;
// eslint-disable-next-line no-control-regex -- as above
const CONTROL_RE_ALL = /[\x00-\x1f\x7f]/g;

function header(req: Request, name: string, max: number): string {
  const value = req.get(name) ?? '';
  // Control characters never reach the gateway; long headers are cut, not refused.
  return (CONTROL_RE.test(value) ? value.replace(CONTROL_RE_ALL, '') : value).slice(0, max);
}

/** `::ffff:203.0.113.9` → `203.0.113.9`; anything else as Express reports it. */
export function normaliseIp(ip: string | undefined): string {
  if (ip === undefined) return '';
  return ip.startsWith('::ffff:') && ip.includes('.') ? ip.slice(7) : ip;
}

export function serverDeviceFields(req: Request): ServerDeviceFields {
  const userAgent = header(req, 'user-agent', 1000);
  return {
    shopper_ip: normaliseIp(req.ip).slice(0, 50),
    user_agent: userAgent,
    accept: header(req, 'accept', 500),
    platform_source: PLATFORM_SOURCE,
    device_type: deviceTypeOf(userAgent),
    order_type: 'WEB',
  };
}

/**
 * Keyed by the interface's names: the browser fields arrive under them (the pay page's hidden
 * inputs post them so), and the server's sit beside them in the same public record. The pay
 * route hands it to the payment request as a `PaymentDevice` (pay/request.ts), which the gateway
 * client maps to the wire.
 */
export type DeviceData = ServerDeviceFields & Record<DeviceFieldName, string>;

/**
 * Everything the gateway gets about the device: server fields, then the browser's fields, then
 * defaults for what the browser did not send (os/browser/language from the request headers,
 * challenge window full screen, the rest empty).
 */
export function deviceData(req: Request, body: unknown): { data: DeviceData; dropped: DeviceFieldName[] } {
  const server = serverDeviceFields(req);
  const { fields, dropped } = parseDeviceFields(body);
  // Named one by one: on Node 20, every key added after a spread costs about a microsecond.
  const data: DeviceData = {
    shopper_ip: server.shopper_ip,
    user_agent: server.user_agent,
    accept: server.accept,
    platform_source: server.platform_source,
    device_type: server.device_type,
    order_type: server.order_type,
    os: fields.os ?? osOf(server.user_agent),
    browser: fields.browser ?? browserOf(server.user_agent),
    browser_lang: fields.browser_lang ?? firstLanguage(header(req, 'accept-language', 200)),
    time_zone: fields.time_zone ?? '',
    resolution: fields.resolution ?? '',
    color_depth: fields.color_depth ?? '',
    cookie_new: fields.cookie_new ?? '',
    cookie_old: fields.cookie_old ?? '',
    device_fingerprint: fields.device_fingerprint ?? '',
    session_id: fields.session_id ?? '',
    challenge_window_size: fields.challenge_window_size ?? '05',
  };
  return { data, dropped };
}
