/**
 * The payer data the pay page collects for an APM that needs it (gateway/person-methods.ts):
 * document type and number, birth date and phone. Checked here only when the chosen method
 * needs them; for any other method they are ignored, so a shopper is never asked for them in vain.
 * Messages are English sentences the page shows translated (pay.fieldError.*).
 */
import { z } from 'zod';
import { isoDay, type Person } from '../../gateway/payment-details.js';
import { needsPersonData, PERSON_DOCUMENT_TYPES, type PersonDocumentType } from '../../gateway/person-methods.js';

const optionalText = z.string().trim().max(50).optional();

/** The form's fields (all optional in the schema; `refinePersonForm` decides what is required). */
export const personFormFields = {
  person_document_type: optionalText,
  person_document_number: optionalText,
  person_birth_date: optionalText,
  person_phone: optionalText,
};

interface PersonForm {
  payment_method: string;
  person_document_type?: string | undefined;
  person_document_number?: string | undefined;
  person_birth_date?: string | undefined;
  person_phone?: string | undefined;
}

const isDocumentType = (value: string): value is PersonDocumentType => Object.hasOwn(PERSON_DOCUMENT_TYPES, value);
const digitsOf = (value: string | undefined): string => (value ?? '').replace(/[\s./-]/g, '');
/** A phone number as digits: spaces, dots, dashes, brackets and a leading + are how people write it. */
const phoneDigits = (value: string | undefined): string => (value ?? '').replace(/[\s.()-]/g, '').replace(/^\+/, '');

export function refinePersonForm(value: PersonForm, ctx: z.RefinementCtx): void {
  if (!needsPersonData(value.payment_method)) return;
  const type = value.person_document_type ?? '';
  if (!isDocumentType(type)) {
    ctx.addIssue({ code: 'custom', path: ['person_document_type'], message: 'Choose the document type' });
  }
  const number = digitsOf(value.person_document_number);
  if (number === '') {
    ctx.addIssue({ code: 'custom', path: ['person_document_number'], message: 'Enter the document number' });
  } else if (!/^\d+$/.test(number) || (isDocumentType(type) && number.length !== PERSON_DOCUMENT_TYPES[type])) {
    ctx.addIssue({ code: 'custom', path: ['person_document_number'], message: 'The document number must be 11 digits for a CPF or 14 for a CNPJ' });
  }
  const birth = value.person_birth_date ?? '';
  if (birth !== '' && !isoDay.safeParse(birth).success) {
    ctx.addIssue({ code: 'custom', path: ['person_birth_date'], message: 'Enter the date of birth as YYYY-MM-DD' });
  }
  const phone = phoneDigits(value.person_phone);
  if (phone !== '' && !/^\d{8,15}$/.test(phone)) {
    ctx.addIssue({ code: 'custom', path: ['person_phone'], message: 'Enter the phone number as 8 to 15 digits' });
  }
}

/** The form as the APM body: the payment method and, for a method that needs it, the payer. */
export function toPerson(value: PersonForm & { method: 'apm' }): { method: 'apm'; payment_method: string; person?: Person } {
  const base = { method: value.method, payment_method: value.payment_method };
  if (!needsPersonData(value.payment_method)) return base;
  const person: Person = {
    documentType: value.person_document_type,
    documentNumber: digitsOf(value.person_document_number),
  };
  const birth = value.person_birth_date ?? '';
  if (birth !== '') person.birthDate = birth;
  const phone = phoneDigits(value.person_phone);
  if (phone !== '') person.phone = { number: phone };
  return { ...base, person };
}
