/** Display helpers for the admin views: money from minor units, dates, state labels. */
import { moneyText } from '../gateway/money.js';

/** 1050 USD → "10.50 USD", 1000 JPY → "1000 JPY", 1234 KWD → "1.234 KWD". */
export const formatMoney = moneyText;

/** `2025-03-01 14:05 UTC`: staff in several time zones read the same text. */
export function formatDateTime(date: Date): string {
  return `${date.toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}

export function formatDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

export function stateLabel(state: string): string {
  return state.replace(/_/g, ' ');
}
