import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../../server/errors.js';
import { decodeItems, encodeItems, itemsTotal, type LineItem } from '../../../server/gateway/items.js';

const items: LineItem[] = [
  { name: 'Blue mug', sku: 'MUG-1', unitPrice: 1250, quantity: 2 },
  { name: 'Tea, green', sku: 'TEA-9', unitPrice: 399, quantity: 1 },
];

describe('items codec', () => {
  it('encodes name, sku, unit price and quantity with the documented separators', () => {
    expect(encodeItems(items, 'USD')).toBe('Blue mug#,#MUG-1#,#12.50#,#2#;#Tea, green#,#TEA-9#,#3.99#,#1');
    expect(encodeItems([{ name: 'Ramen', sku: 'R', unitPrice: 800, quantity: 3 }], 'JPY')).toBe('Ramen#,#R#,#800#,#3');
  });

  it('decodes what it encodes', () => {
    expect(decodeItems(encodeItems(items, 'USD'), 'USD')).toEqual(items);
    expect(decodeItems(encodeItems(items, 'KWD'), 'KWD')).toEqual(items);
    expect(decodeItems('', 'USD')).toEqual([]);
  });

  it('refuses separators inside names and skus, naming the field', () => {
    for (const bad of ['a#;#b', 'a#,#b']) {
      try {
        encodeItems([{ name: bad, sku: 's', unitPrice: 1, quantity: 1 }], 'USD');
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(ValidationError);
        expect((error as ValidationError).field).toBe('items[0].name');
      }
    }
    expect(() => encodeItems([{ name: 'n', sku: 'x#,#y', unitPrice: 1, quantity: 1 }], 'USD')).toThrow(/items\[0\]\.sku/);
  });

  it('refuses bad quantities, malformed entries and over-long lists', () => {
    expect(() => encodeItems([{ name: 'n', sku: 's', unitPrice: 1, quantity: 0 }], 'USD')).toThrow(ValidationError);
    expect(() => decodeItems('a#,#b#,#1.00', 'USD')).toThrow(/four values/);
    expect(() => decodeItems('a#,#b#,#1.00#,#x', 'USD')).toThrow(ValidationError);
    const many = Array.from({ length: 300 }, (_, i) => ({ name: `Item number ${i}`, sku: `SKU-${i}`, unitPrice: 100, quantity: 1 }));
    expect(() => encodeItems(many, 'USD')).toThrow(/5000/);
  });

  it('totals unit price times quantity', () => {
    expect(itemsTotal(items)).toBe(2899);
  });
});
