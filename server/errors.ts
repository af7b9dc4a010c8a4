/**
 * The kit's typed errors. Every error carries a stable `code` (ERR_…) that callers switch on;
 * messages are for people and may change. No error ever carries card number, CVV or expiry.
 */

export type ErrorCode =
  // configuration: caught at start-up, each names the option and the fix
  | 'ERR_CONFIG'
  | 'ERR_CONFIG_PUBLIC_URL'
  | 'ERR_CONFIG_STORE'
  | 'ERR_CONFIG_TOKEN_SECRET'
  | 'ERR_CONFIG_NOTIFY_URL'
  // transport: the request may or may not have reached the gateway
  | 'ERR_TRANSPORT_CONNECTION'
  | 'ERR_TRANSPORT_TIMEOUT'
  // protocol: the gateway answered something we cannot trust or read
  | 'ERR_PROTOCOL_MALFORMED'
  | 'ERR_PROTOCOL_SIGNATURE'
  // gateway: the gateway answered and refused
  | 'ERR_GATEWAY_INVALID_INPUT'
  | 'ERR_GATEWAY_NOT_FOUND'
  | 'ERR_GATEWAY_HTTP'
  | 'ERR_GATEWAY_STATUS'
  | 'ERR_GATEWAY_BAD_SIGNATURE'
  | 'ERR_GATEWAY_TEST_ACCOUNT_ON_LIVE'
  | 'ERR_GATEWAY_LIVE_ACCOUNT_ON_TEST'
  | 'ERR_GATEWAY_IP_NOT_ALLOWED'
  // notifications: a signature that matches no configured key, or another merchant's account
  | 'ERR_NOTIFICATION_SIGNATURE'
  | 'ERR_NOTIFICATION_ACCOUNT'
  // input validation at the kit's edge
  | 'ERR_VALIDATION'
  // orders and storage
  | 'ERR_ORDER_EXISTS'
  | 'ERR_ORDER_NOT_FOUND'
  | 'ERR_ORDER_STATE'
  | 'ERR_STORE';

export interface KitErrorOptions {
  cause?: unknown;
  /** Structured, card-free context (field names, order numbers, HTTP status…). */
  details?: Record<string, unknown>;
}

/** Where a code's row in the error table is: every message ends with it. */
export function errorDocsLink(code: ErrorCode): string {
  return `docs/errors.md#${code.toLowerCase()}`;
}

export class KitError extends Error {
  readonly code: ErrorCode;
  readonly details: Record<string, unknown>;

  constructor(code: ErrorCode, message: string, options: KitErrorOptions = {}) {
    super(`${message} [${code}: ${errorDocsLink(code)}]`, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.code = code;
    this.details = options.details ?? {};
  }

  toJSON(): Record<string, unknown> {
    return { name: this.name, code: this.code, message: this.message, details: this.details };
  }
}

export type ConfigErrorCode = Extract<ErrorCode, `ERR_CONFIG${string}`>;

/**
 * A configuration problem found at start-up. `option` names the setting, `fix` says what to do;
 * `code` is ERR_CONFIG, or a narrower ERR_CONFIG_* for the mistakes docs/errors.md lists apart.
 */
export class ConfigError extends KitError {
  readonly option: string;
  readonly fix: string;
  constructor(option: string, problem: string, fix: string, code: ConfigErrorCode = 'ERR_CONFIG') {
    super(code, `Invalid option "${option}": ${problem}. Fix: ${fix}`, { details: { option, fix } });
    this.option = option;
    this.fix = fix;
  }
}

/**
 * The request left (or may have left) this process but no usable answer came back.
 * `outcomeUnknown` is true for money-moving operations: the gateway may have acted, so the
 * caller must settle the outcome by query (the sweeper does this) and never simply re-send.
 */
export class TransportError extends KitError {
  readonly outcomeUnknown: boolean;
  constructor(
    code: 'ERR_TRANSPORT_CONNECTION' | 'ERR_TRANSPORT_TIMEOUT',
    message: string,
    options: KitErrorOptions & { outcomeUnknown: boolean },
  ) {
    super(code, message, options);
    this.outcomeUnknown = options.outcomeUnknown;
  }
}

/** The gateway's answer could not be read or failed its signature check: never a success. */
export class ProtocolError extends KitError {
  constructor(code: 'ERR_PROTOCOL_MALFORMED' | 'ERR_PROTOCOL_SIGNATURE', message: string, options: KitErrorOptions = {}) {
    super(code, message, options);
  }
}

/** The gateway answered and refused the request (HTTP 400/404, return_status not 1, I00xx). */
export class GatewayError extends KitError {
  readonly httpStatus: number | undefined;
  readonly gatewayCode: string | undefined;
  constructor(
    code: Extract<ErrorCode, `ERR_GATEWAY_${string}`>,
    message: string,
    options: KitErrorOptions & { httpStatus?: number; gatewayCode?: string } = {},
  ) {
    super(code, message, options);
    this.httpStatus = options.httpStatus;
    this.gatewayCode = options.gatewayCode;
  }
}

/**
 * A notification that cannot be trusted: its signature matches no configured key (or no key is
 * configured), or it is signed for another merchant account. Nothing in it may be used.
 */
export class NotificationError extends KitError {
  constructor(code: 'ERR_NOTIFICATION_SIGNATURE' | 'ERR_NOTIFICATION_ACCOUNT', message: string, options: KitErrorOptions = {}) {
    super(code, message, options);
  }
}

/** Bad input at the kit's edge. `field` is the dotted path of the first offending field. */
export class ValidationError extends KitError {
  readonly field: string;
  readonly issues: { field: string; message: string }[];
  constructor(issues: { field: string; message: string }[], message?: string) {
    const first = issues[0] ?? { field: '(input)', message: 'invalid input' };
    super('ERR_VALIDATION', message ?? `Invalid ${first.field}: ${first.message}`, { details: { issues } });
    this.field = first.field;
    this.issues = issues;
  }
}

export function isKitError(value: unknown): value is KitError {
  return value instanceof KitError;
}
