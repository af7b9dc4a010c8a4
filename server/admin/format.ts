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

const CODE_SUFFIX = /\s*\[(ERR_[A-Z_]+): docs\/errors\.md#[a-z_]+\]/g;

/**
 * A kit error's message for staff: the sentence without its `[ERR_…: docs/errors.md#…]` suffix,
 * and the code apart (the views show it in small print, for a search in docs/errors.md).
 */
export function errorParts(message: string): { text: string; code: string | null } {
  let code: string | null = null;
  const text = message.replace(CODE_SUFFIX, (_suffix, found: string) => {
    code ??= found;
    return '';
  });
  return { text, code };
}
