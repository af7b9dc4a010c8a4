/**
 * The gateway account's options — base URL, merchant and account ids, sign and verify keys,
 * timeout, content type, recipes and the two readings the interface leaves open — defined once.
 * `createGatewayClient` checks its options with this schema, and the checkout kit's `gateway`
 * option is this schema with the kit's own bounds on top, so a key or id means the same thing,
 * and is checked by the same rule, wherever it is given.
 */
import { z } from 'zod';
import { SIGNED_OPERATIONS } from './signing.js';

const isHttpUrl = (value: string): boolean => URL.canParse(value) && /^https?:$/.test(new URL(value).protocol);
const recipePart = z.union([z.string().min(1), z.strictObject({ each: z.string().min(1), field: z.string().min(1) })]);

export const gatewayAccountSchema = z.strictObject({
  baseUrl: z.string().refine(isHttpUrl, 'must be an http(s) URL'),
  merchantId: z.string().min(1, 'must be 1-7 characters').max(7, 'must be 1-7 characters'),
  accountId: z.string().min(1, 'must be 1-10 characters').max(10, 'must be 1-10 characters'),
  signKey: z.string().min(1, 'must not be empty'),
  verifyKeys: z.array(z.string().min(1, 'must be a list of non-empty keys')).optional(),
  timeoutMs: z.int().min(1).max(600_000).optional(),
  jsonContentType: z.string().regex(/^[\w.+-]+\/[\w.+-]+(\s*;.*)?$/, 'must be a media type').optional(),
  recipes: z.partialRecord(z.enum(SIGNED_OPERATIONS as [string, ...string[]]), z.array(recipePart).min(1)).optional(),
  requireReplySignatures: z.boolean('must be true or false').optional(),
  payoutAmountUnit: z.enum(['minor', 'major'], "must be 'minor' or 'major'").optional(),
});
export type GatewayAccountOptions = z.input<typeof gatewayAccountSchema>;

/** The account option names, for picking them out of the client's wider options. */
export const GATEWAY_ACCOUNT_OPTIONS = Object.keys(gatewayAccountSchema.shape) as (keyof GatewayAccountOptions)[];
