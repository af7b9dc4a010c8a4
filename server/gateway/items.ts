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

/** Sum of unit price × quantity, in minor units. */
export function itemsTotal(items: readonly LineItem[]): number {
  return items.reduce((sum, item) => sum + item.unitPrice * item.quantity, 0);
}
