/**
 * Test cards and what each one does. A card number lives only in the request being handled:
 * it is turned into a behaviour and a masked card at once and never kept.
 */
import { RESULT_INFO } from './wire/codes.js';
import { maskedCard, passesLuhn } from './wire/format.js';

export type CardBehaviour = 'approve' | 'challenge' | 'doNotHonor' | 'insufficientFunds' | 'expired' | 'review' | 'processingError';

/** The documented test cards. Any other Luhn-valid number behaves like 4242424242424242. */
export const TEST_CARDS: Readonly<Record<string, CardBehaviour>> = {
  '4242424242424242': 'approve',
  '4000000000003220': 'challenge',
  '4000000000000002': 'doNotHonor',
  '4000000000009995': 'insufficientFunds',
  '4000000000000069': 'expired',
  '4000000000009235': 'review',
  '4000000000000119': 'processingError',
};

export const CARD_BEHAVIOURS: readonly CardBehaviour[] = ['approve', 'challenge', 'doNotHonor', 'insufficientFunds', 'expired', 'review', 'processingError'];

export function isCardBehaviour(value: string): value is CardBehaviour {
  return (CARD_BEHAVIOURS as readonly string[]).includes(value);
}

/** `result_info` of the behaviours that end in a decline. */
export const DECLINE_RESULT: Partial<Record<CardBehaviour, string>> = {
  doNotHonor: RESULT_INFO.declined,
  insufficientFunds: RESULT_INFO.insufficientFunds,
  expired: RESULT_INFO.expiredCard,
};


export function behaviourOf(digits: string): CardBehaviour {
  return TEST_CARDS[digits] ?? 'approve';
}

/**
 * True when the expiry is in the past. A month that is not 1–12 or a year that is not 2 or 4
 * digits is reported by the caller as bad input before this is asked.
 */
export function isExpired(month: number, year: number, now: Date): boolean {
  const fullYear = year < 100 ? 2000 + year : year;
  const nowYear = now.getUTCFullYear();
  const nowMonth = now.getUTCMonth() + 1;
  return fullYear < nowYear || (fullYear === nowYear && month < nowMonth);
}

export interface CardInput {
  card: string;
  expirationMonth: string;
  expirationYear: string;
  securityCode: string;
}

export interface CheckedCard {
  masked: string;
  behaviour: CardBehaviour;
}

export type CardProblem = { field: string; message: string };

/**
 * Checks a card the way the gateway does and reduces it to what may be kept. Returns the
 * problem instead when the input is unusable (HTTP 400 on the API, a message on the hosted page).
 */
export function checkCard(input: CardInput, now: Date): CheckedCard | CardProblem {
  const digits = input.card.replace(/[\s-]/g, '');
  if (!passesLuhn(digits)) return { field: 'card', message: 'card is not a valid card number (Luhn check failed)' };
  if (!/^\d{1,2}$/.test(input.expirationMonth) || Number(input.expirationMonth) < 1 || Number(input.expirationMonth) > 12) {
    return { field: 'expiration_month', message: 'expiration_month must be 1 to 12' };
  }
  if (!/^(\d{2}|\d{4})$/.test(input.expirationYear)) return { field: 'expiration_year', message: 'expiration_year must be 2 or 4 digits' };
  if (!/^\d{3,4}$/.test(input.securityCode)) return { field: 'security_code', message: 'security_code must be 3 or 4 digits' };
  const expired = isExpired(Number(input.expirationMonth), Number(input.expirationYear), now);
  return { masked: maskedCard(digits), behaviour: expired ? 'expired' : behaviourOf(digits) };
}

export function isCardProblem(value: CheckedCard | CardProblem): value is CardProblem {
  return 'field' in value;
}
