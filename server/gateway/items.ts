/**
 * The `items` codec: entries `name#,#sku#,#unit price#,#quantity` joined by `#;#`, unit prices as
 * decimal strings in the order currency. Inside the kit an item's price is minor units.
 */
import { ValidationError } from '../errors.js';
import { parseWireAmount, toWireAmount } from './money.js';

export interface LineItem {
  name: string;
  sku: string;
  /** Unit price in minor units of the order currency. */
  unitPrice: number;
  quantity: number;
}

const ENTRY_SEPARATOR = '#;#';
const FIELD_SEPARATOR = '#,#';
export const ITEMS_MAX_LENGTH = 5000;
/** What a name or sku must not contain. */
export const ITEM_SEPARATORS = [ENTRY_SEPARATOR, FIELD_SEPARATOR] as const;

function checkText(value: string, field: string): void {
  if (value.includes(ENTRY_SEPARATOR) || value.includes(FIELD_SEPARATOR)) {
    throw new ValidationError([{ field, message: `must not contain "${ENTRY_SEPARATOR}" or "${FIELD_SEPARATOR}"` }]);
  }
}

export function encodeItems(items: readonly LineItem[], currency: string): string {
  const encoded = items
    .map((item, i) => {
      checkText(item.name, `items[${i}].name`);
      checkText(item.sku, `items[${i}].sku`);
      if (!Number.isSafeInteger(item.quantity) || item.quantity < 1) {
        throw new ValidationError([{ field: `items[${i}].quantity`, message: 'must be a whole number of at least 1' }]);
      }
      const price = toWireAmount(item.unitPrice, currency, `items[${i}].unitPrice`);
      return [item.name, item.sku, price, String(item.quantity)].join(FIELD_SEPARATOR);
    })
    .join(ENTRY_SEPARATOR);
  if (encoded.length > ITEMS_MAX_LENGTH) {
    throw new ValidationError([{ field: 'items', message: `encodes to ${encoded.length} characters; the gateway allows ${ITEMS_MAX_LENGTH}` }]);
  }
  return encoded;
}

export function decodeItems(value: string, currency: string): LineItem[] {
  if (value === '') return [];
  return value.split(ENTRY_SEPARATOR).map((entry, i) => {
    const parts = entry.split(FIELD_SEPARATOR);
    if (parts.length !== 4) {
      throw new ValidationError([{ field: `items[${i}]`, message: 'must have four values: name, item number, unit price, quantity' }]);
    }
    const [name = '', sku = '', price = '', quantity = ''] = parts;
    if (!/^\d{1,9}$/.test(quantity) || Number(quantity) < 1) {
      throw new ValidationError([{ field: `items[${i}].quantity`, message: 'must be a whole number of at least 1' }]);
    }
    return { name, sku, unitPrice: parseWireAmount(price, currency, `items[${i}].unitPrice`), quantity: Number(quantity) };
  });
}

/**
 * The length `encodeItems` gives, from the currency's exponent: the same count without building
 * the string (a price has its digits, at least exponent + 1 of them, plus a point when exponent > 0).
 */
export function encodedItemsLength(items: readonly LineItem[], exponent: number): number {
  let length = Math.max(0, items.length - 1) * ENTRY_SEPARATOR.length;
  for (const item of items) {
    const price = Math.max(String(item.unitPrice).length, exponent + 1) + (exponent > 0 ? 1 : 0);
    length += item.name.length + item.sku.length + price + String(item.quantity).length + 3 * FIELD_SEPARATOR.length;
  }
  return length;
}

/** Sum of unit price × quantity, in minor units. */
export function itemsTotal(items: readonly LineItem[]): number {
  return items.reduce((sum, item) => sum + item.unitPrice * item.quantity, 0);
}
