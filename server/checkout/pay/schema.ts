/**
 * The pay form's body. Only what the shopper chooses or types is read here: the method, card
 * data and cardholder name for a card, the payment method code for an APM. Amount, currency,
 * items, shopper and addresses come from the stored order, never from the browser.
 * Messages never contain the submitted value (it may be a card number).
 */
import { z } from 'zod';
import { luhnValid } from '../../card-number.js';
import { personFormFields, refinePersonForm, toPerson } from './person.js';
import { compiled } from '../../zod-compiled.js';

export const PAY_METHODS = ['card', 'apm', 'hosted'] as const;


const name = (label: string) =>
  z
    .string({ error: `Enter the ${label}` })
    .trim()
    .min(1, `Enter the ${label}`)
    .max(50, `The ${label} must be 50 characters or fewer`)
    .regex(/^[\p{L}\p{M}][\p{L}\p{M}' .-]*$/u, `The ${label} may contain only letters, spaces, apostrophes, dots and hyphens`);

const cardNumber = z
  .string({ error: 'Enter the card number' })
  .transform((value) => value.replace(/[\s-]/g, ''))
  .pipe(
    z
      .string()
      .min(1, 'Enter the card number')
      .regex(/^\d{12,19}$/, 'The card number must be 12 to 19 digits')
      .refine(luhnValid, 'The card number is not valid: check it and try again'),
  );

const month = z
  .string({ error: 'Enter the expiry month' })
  .trim()
  .regex(/^(0?[1-9]|1[0-2])$/, 'Enter the expiry month as a number from 1 to 12')
  .transform((value) => value.padStart(2, '0'));

const year = z
  .string({ error: 'Enter the expiry year' })
  .trim()
  .regex(/^(\d{2}|\d{4})$/, 'Enter the expiry year as 2 or 4 digits')
  .transform((value) => (value.length === 2 ? `20${value}` : value));

const securityCode = z
  .string({ error: 'Enter the security code' })
  .trim()
  .regex(/^\d{3,4}$/, 'The security code must be 3 or 4 digits');

/** Builds the body schema; `now` decides which expiry dates are in the past. */
export function payBodySchema(now: () => Date = () => new Date()) {
  const card = z
    .object({
      method: z.literal('card'),
      card: cardNumber,
      expiration_month: month,
      expiration_year: year,
      security_code: securityCode,
      first_name: name('first name'),
      last_name: name('last name'),
      // "Save this card" (a checkbox): honoured only for a signed-in shopper (see saved-cards.ts).
      save_card: z.enum(['yes'], { error: 'Untick and tick "save this card" again' }).optional(),
    })
    .superRefine((value, ctx) => {
      const today = now();
      const expiry = Number(value.expiration_year) * 12 + Number(value.expiration_month);
      const current = today.getUTCFullYear() * 12 + today.getUTCMonth() + 1;
      // A card is valid until the end of its expiry month.
      if (expiry < current) {
        ctx.addIssue({ code: 'custom', path: ['expiration_year'], message: 'The card has expired: check the expiry date' });
      } else if (expiry > current + 12 * 25) {
        ctx.addIssue({ code: 'custom', path: ['expiration_year'], message: 'Check the expiry year' });
      }
    });
  const apm = z
    .object({
      method: z.literal('apm'),
      payment_method: z
        .string({ error: 'Choose a payment method' })
        .trim()
        .regex(/^[A-Za-z0-9_.-]{1,50}$/, 'Choose a payment method from the list'),
      ...personFormFields,
    })
    .superRefine(refinePersonForm)
    .transform(toPerson);
  const hosted = z.object({ method: z.literal('hosted') });
  return z.discriminatedUnion('method', [card, apm, hosted], { error: 'Choose how to pay' });
}

let systemClock: ReturnType<typeof payBodySchema> | null = null;
/** The schema on the system clock, built once: constructing zod schemas costs more than parsing. */
function systemClockSchema(): ReturnType<typeof payBodySchema> {
  systemClock ??= compiled(payBodySchema());
  return systemClock;
}

export type PayBody = z.output<ReturnType<typeof payBodySchema>>;
export type CardPayBody = Extract<PayBody, { method: 'card' }>;
export type ApmPayBody = Extract<PayBody, { method: 'apm' }>;

export type PayBodyResult = { ok: true; body: PayBody } | { ok: false; errors: Record<string, string> };

/** Every field the schema reads. Sent twice, one of them is refused rather than either charged. */
export const PAY_FIELDS = [
  'method', 'card', 'expiration_month', 'expiration_year', 'security_code', 'first_name', 'last_name', 'payment_method',
  'save_card', 'saved_card',
  'person_document_type', 'person_document_number', 'person_birth_date', 'person_phone',
] as const;

/** One error per pay field that was sent more than once (empty when none was). */
export function repeatedFieldErrors(repeated: readonly string[]): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const field of PAY_FIELDS) {
    if (repeated.includes(field)) errors[field] = `The ${field} field was sent more than once: nothing was charged, enter it once and try again`;
  }
  return errors;
}

/** Parses the form; on failure, one message per form field (the first issue of each). */
export function parsePayBody(body: unknown, now?: () => Date): PayBodyResult {
  const parsed = (now === undefined ? systemClockSchema() : payBodySchema(now)).safeParse(body ?? {});
  if (parsed.success) return { ok: true, body: parsed.data };
  const errors: Record<string, string> = {};
  for (const issue of parsed.error.issues) {
    const field = typeof issue.path[0] === 'string' ? issue.path[0] : 'method';
    errors[field] ??= issue.message;
  }
  return { ok: false, errors };
}
