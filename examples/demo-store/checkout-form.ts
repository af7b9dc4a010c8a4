/**
 * The shop's checkout form: e-mail, billing address, an optional delivery address and the
 * payment method. Validated with zod; each problem is reported against its field.
 */
import { z } from 'zod';

export const COUNTRIES = [
  ['NL', 'Netherlands'], ['BE', 'Belgium'], ['DE', 'Germany'], ['AT', 'Austria'], ['FR', 'France'],
  ['GB', 'United Kingdom'], ['US', 'United States'], ['BR', 'Brazil'], ['MX', 'Mexico'],
] as const;
const COUNTRY_CODES = COUNTRIES.map(([code]) => code) as [string, ...string[]];

export const METHODS = [
  { value: 'hosted', label: 'Secure payment page', hint: 'Type your card on the payment provider\'s page; card data never touches this shop.' },
  { value: 'card', label: 'Card', hint: 'Type your card here; 3-D Secure when your bank asks for it.' },
  { value: 'apm', label: 'iDEAL, Bancontact, Sofort…', hint: 'Pay with a local method on your bank\'s page.' },
] as const;

const text = (max: number, what: string) => z.string().trim().min(1, `Enter ${what}`).max(max, `${what} is too long`);
const optionalText = (max: number) => z.string().trim().max(max).optional();

const addressShape = {
  first_name: text(50, 'a first name'),
  last_name: text(50, 'a last name'),
  address: text(200, 'the street and number'),
  city: text(100, 'the town or city'),
  postal_code: text(20, 'the postcode'),
  country: z.enum(COUNTRY_CODES, 'Choose a country'),
};

export const checkoutSchema = z.object({
  email: z.email('Enter an e-mail address like name@example.com').max(100),
  ...addressShape,
  ship_elsewhere: z.literal('on').optional(),
  delivery_first_name: optionalText(50),
  delivery_last_name: optionalText(50),
  delivery_address: optionalText(200),
  delivery_city: optionalText(100),
  delivery_postal_code: optionalText(20),
  delivery_country: z.union([z.enum(COUNTRY_CODES), z.literal('')]).optional(),
  method: z.enum(['hosted', 'card', 'apm'], 'Choose how to pay'),
});

const DELIVERY_FIELDS = [
  ['delivery_first_name', 'a first name'], ['delivery_last_name', 'a last name'], ['delivery_address', 'the street and number'],
  ['delivery_city', 'the town or city'], ['delivery_postal_code', 'the postcode'], ['delivery_country', 'a country'],
] as const;

/** The form, or every problem at once (the delivery address is checked even when others fail). */
export function parseCheckout(body: unknown): { ok: true; form: CheckoutForm } | { ok: false; errors: Record<string, string> } {
  const parsed = checkoutSchema.safeParse(body);
  const errors = parsed.success ? {} : formErrors(parsed.error);
  const fields = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  if (fields.ship_elsewhere === 'on') {
    for (const [key, what] of DELIVERY_FIELDS) {
      const value = fields[key];
      if (typeof value !== 'string' || value.trim() === '') errors[key] ??= `Enter ${what} for delivery`;
    }
  }
  if (parsed.success && Object.keys(errors).length === 0) return { ok: true, form: parsed.data };
  return { ok: false, errors };
}

export type CheckoutForm = z.infer<typeof checkoutSchema>;

export interface Address {
  firstName: string;
  lastName: string;
  country: string;
  city: string;
  address: string;
  postalCode: string;
}

export function billingOf(form: CheckoutForm): Address {
  return { firstName: form.first_name, lastName: form.last_name, country: form.country, city: form.city, address: form.address, postalCode: form.postal_code };
}

export function deliveryOf(form: CheckoutForm): Address {
  if (form.ship_elsewhere === undefined) return billingOf(form);
  return {
    firstName: form.delivery_first_name ?? '',
    lastName: form.delivery_last_name ?? '',
    country: form.delivery_country ?? '',
    city: form.delivery_city ?? '',
    address: form.delivery_address ?? '',
    postalCode: form.delivery_postal_code ?? '',
  };
}

/** `{ field: message }`, first problem per field. */
export function formErrors(error: z.ZodError): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const issue of error.issues) {
    const field = String(issue.path[0] ?? 'form');
    errors[field] ??= issue.message;
  }
  return errors;
}

/** What the form shows again after an error: text fields only, bounded. */
export function formValues(body: unknown): Record<string, string> {
  const source = typeof body === 'object' && body !== null ? (body as Record<string, unknown>) : {};
  const values: Record<string, string> = {};
  for (const [key, value] of Object.entries(source)) {
    if (typeof value === 'string' && /^[a-z_]{1,30}$/.test(key)) values[key] = value.slice(0, 200);
  }
  return values;
}
