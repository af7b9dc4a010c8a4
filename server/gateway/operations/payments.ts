/**
 * Payments: direct card and APM payments (/v1/authorise, XML reply) and the hosted page
 * (/v1/checkout), either as the signed form a browser posts or as a server-side POST.
 * Authorise is never re-sent: a lost answer is an unknown outcome, settled by query.
 */
import type { z } from 'zod';
import { send, type CallOptions, type ErrorContext } from '../core.js';
import { encodeItems, type LineItem } from '../items.js';
import { checkAmountComponents, toWireAmount } from '../money.js';
import { signMessage, type SignedOperation } from '../signing.js';
import { OPERATION_PATHS, toFormFields } from '../wire.js';
import { parseAuthoriseXml } from '../xml.js';
import { challengeFields, mapPaymentRequest, type PaymentRequest } from '../payment-request.js';
import { toAuthoriseResult, type AuthoriseResult } from './authorise-result.js';
import { identity, inContext, validate, type ClientContext } from './context.js';
import {
  apmPaymentInputSchema, checkoutInputSchema, directPaymentInputSchema, MONEY_FIELDS,
  type ApmPaymentInput, type CheckoutInput, type DirectPaymentInput,
} from './payment-inputs.js';

export interface CheckoutForm {
  /** `{baseUrl}/v1/checkout`: where the browser posts the form. */
  action: string;
  /** Hidden fields, already signed; nested values are JSON text. */
  fields: Record<string, string>;
}

/**
 * An authorise request validated and signed but not sent: lets a caller refuse bad input before
 * it records anything, then send exactly what it checked. Holds card data: keep it in scope only.
 */
export interface SignedAuthorise {
  readonly wire: SignedWire;
}

/**
 * A payment validated and signed, ready to send. For a card, `challengeFields` are what the
 * shopper's browser posts to the issuer URL when the answer asks for 3-D Secure.
 */
export type PreparedPayment =
  | { kind: 'card'; authorise: SignedAuthorise; challengeFields: Record<string, string> }
  | { kind: 'apm'; authorise: SignedAuthorise }
  | { kind: 'hosted'; form: CheckoutForm };

export interface PaymentsApi {
  /**
   * Maps a payment in the kit's terms (minor units, shopper, device, URLs, method) to its wire
   * request, validates and signs it (ValidationError naming the wire fields otherwise).
   */
  prepare(request: PaymentRequest): PreparedPayment;
  authorise(input: DirectPaymentInput, options?: CallOptions): Promise<AuthoriseResult>;
  authoriseApm(input: ApmPaymentInput, options?: CallOptions): Promise<AuthoriseResult>;
  /** Validates and signs a direct card payment (ValidationError naming the fields otherwise). */
  signAuthorise(input: DirectPaymentInput): SignedAuthorise;
  /** Validates and signs an APM payment. */
  signAuthoriseApm(input: ApmPaymentInput): SignedAuthorise;
  /** Sends a signed authorise request: `authorise(input)` is `sendAuthorise(signAuthorise(input))`. */
  sendAuthorise(request: SignedAuthorise, options?: CallOptions): Promise<AuthoriseResult>;
  checkoutForm(input: CheckoutInput): CheckoutForm;
  /** POSTs the checkout request from the server and returns the gateway's HTML page. */
  checkoutPage(input: CheckoutInput, options?: CallOptions): Promise<string>;
}

type PaymentInput = Record<string, unknown> & {
  currency: string;
  items: LineItem[];
  subscription?: Record<string, unknown> & { contract_amount?: number | undefined };
};

/** A signed payment request in wire shape (what the wire schemas describe). */
export type SignedWire = Record<string, unknown> & { order_no: string; amount: string; currency: string; encryption_data: string };

const MONEY_KEYS: ReadonlySet<string> = new Set(MONEY_FIELDS);

/** Turns validated input into unsigned wire fields: money to decimal strings, items encoded. */
function toWireFields(ctx: ClientContext, input: PaymentInput): Record<string, unknown> {
  const currency = input.currency;
  if (ctx.checkAmountComponents) {
    const amounts: Record<string, number | undefined> = {};
    for (const field of MONEY_FIELDS) amounts[field] = input[field] as number | undefined;
    checkAmountComponents({ ...amounts, amount: amounts.amount ?? 0 });
  }
  // One pass of plain assignments: rest/spread over ~40 keys cost more than the rest of the build.
  const fields: Record<string, unknown> = identity(ctx);
  for (const key of Object.keys(input)) {
    if (key === 'items' || key === 'subscription') continue;
    const value = input[key];
    fields[key] = MONEY_KEYS.has(key) && typeof value === 'number' ? toWireAmount(value, currency, key) : value;
  }
  fields.items = encodeItems(input.items, currency);
  const subscription = input.subscription;
  if (subscription !== undefined) {
    const { contract_amount, ...plan } = subscription;
    fields.subscription =
      contract_amount === undefined ? plan : { ...plan, contract_amount: toWireAmount(contract_amount, currency, 'subscription.contract_amount') };
  }
  return fields;
}

/**
 * Validates the input (the edge) and derives the signed wire request from it. The wire request
 * is not parsed again: every input the input schema accepts maps to a request the wire schema
 * accepts (test/unit/gateway/payment-wire.test.ts checks that property), and re-parsing ~70
 * fields on every payment cost more than building and signing them.
 */
export function buildSigned(ctx: ClientContext, operation: SignedOperation, inputSchema: z.ZodType, input: unknown): SignedWire {
  const wire = toWireFields(ctx, validate(inputSchema, input) as PaymentInput);
  // Added in place: the object is this call's own, and copying ~45 keys costs more than signing.
  wire.encryption_data = signMessage(operation, wire, ctx.signKey, ctx.recipes);
  return wire as SignedWire;
}

async function authoriseWith(
  ctx: ClientContext,
  wire: { order_no: string; amount: string; currency: string },
  options: CallOptions | undefined,
): Promise<AuthoriseResult> {
  const ectx: ErrorContext = { operation: 'authorise', orderNo: wire.order_no };
  const reply = await send(ctx.core, { operation: 'authorise', fields: wire, orderNo: wire.order_no, timeoutMs: options?.timeoutMs });
  try {
    return toAuthoriseResult(parseAuthoriseXml(reply.text), wire, ctx, ectx);
  } catch (error) {
    throw inContext(error, ectx);
  }
}

function checkoutForm(ctx: ClientContext, input: CheckoutInput): CheckoutForm {
  const wire = buildSigned(ctx, 'checkout', checkoutInputSchema, input);
  return { action: `${ctx.core.baseUrl}${OPERATION_PATHS.checkout}`, fields: toFormFields(wire) };
}

export function createPaymentsApi(ctx: ClientContext): PaymentsApi {
  return {
    prepare(request) {
      const mapped = mapPaymentRequest(request);
      if (mapped.kind === 'hosted') return { kind: 'hosted', form: checkoutForm(ctx, mapped.input) };
      if (mapped.kind === 'apm') return { kind: 'apm', authorise: { wire: buildSigned(ctx, 'authorise', apmPaymentInputSchema, mapped.input) } };
      return {
        kind: 'card',
        authorise: { wire: buildSigned(ctx, 'authorise', directPaymentInputSchema, mapped.input) },
        challengeFields: challengeFields(request),
      };
    },
    async authorise(input, options) {
      return authoriseWith(ctx, buildSigned(ctx, 'authorise', directPaymentInputSchema, input), options);
    },
    async authoriseApm(input, options) {
      return authoriseWith(ctx, buildSigned(ctx, 'authorise', apmPaymentInputSchema, input), options);
    },
    signAuthorise(input) {
      return { wire: buildSigned(ctx, 'authorise', directPaymentInputSchema, input) };
    },
    signAuthoriseApm(input) {
      return { wire: buildSigned(ctx, 'authorise', apmPaymentInputSchema, input) };
    },
    async sendAuthorise(request, options) {
      return authoriseWith(ctx, request.wire, options);
    },
    checkoutForm(input) {
      return checkoutForm(ctx, input);
    },
    async checkoutPage(input, options) {
      const wire = buildSigned(ctx, 'checkout', checkoutInputSchema, input);
      const reply = await send(ctx.core, { operation: 'checkout', fields: wire, orderNo: wire.order_no, timeoutMs: options?.timeoutMs });
      return reply.text;
    },
  };
}
