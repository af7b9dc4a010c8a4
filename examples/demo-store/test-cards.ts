/** The sandbox's test cards as the pay page lists them, so a visitor can try every outcome. */
import { TEST_CARDS, type CardBehaviour } from '../../server/index.js';

const LABELS: Record<CardBehaviour, string> = {
  approve: 'Approved',
  challenge: '3-D Secure challenge: pass or fail it on the bank page',
  doNotHonor: 'Declined: do not honour',
  insufficientFunds: 'Declined: insufficient funds',
  expired: 'Declined: expired card',
  review: 'Held for risk review (staff decide in the admin)',
  processingError: 'Processing error',
};

export interface TestCard {
  number: string;
  /** Grouped by four for reading: "4242 4242 4242 4242". */
  display: string;
  behaviour: CardBehaviour;
  label: string;
}

export const DEMO_TEST_CARDS: readonly TestCard[] = Object.entries(TEST_CARDS).map(([number, behaviour]) => ({
  number,
  display: number.replace(/(\d{4})(?=\d)/g, '$1 '),
  behaviour,
  label: LABELS[behaviour],
}));

/** An expiry that is always in the future, for the hint next to the cards. */
export function sampleExpiry(now = new Date()): { month: string; year: string } {
  return { month: '12', year: String(now.getUTCFullYear() + 3) };
}
