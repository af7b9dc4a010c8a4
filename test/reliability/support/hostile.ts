/**
 * Hostile values for the fuzzers (fast-check arbitraries): unicode tricks, numbers that
 * overflow or are negative or zero, wrong currencies, injection-looking text, huge strings, and
 * hostile bodies (XML bombs, deep JSON, huge bodies, wrong content types).
 */
import fc from 'fast-check';

const TRICKS = [
  '', ' ', '\u0000', '\u202eRDER-1', 'ORDER\u200b-1', 'ΟRDER-1', 'ORDER-1\u0301', '\ud800', '\udfff', '😀😀', '\uFEFF', '\r\nSet-Cookie: a=b',
  '-1', '0', '-0', '00', '0.00', '0.001', '1e309', '1e-7', 'NaN', 'Infinity', '-Infinity', '9'.repeat(40), '99999999999999999999.99', '1,00', '0x10', '1_000',
  '12.5', '12.555', '-12.50', '+1', ' 1 ', 'usd', 'XXX', 'US', 'USDD', '€', '123', 'EUR ', 'JPY', 'KWD',
  '__proto__', 'constructor', 'prototype', "' OR 1=1 --", '"; DROP TABLE checkout_orders; --', '../../etc/passwd', '%00', '%s%n%x',
  '<script>alert(1)</script>', '"><img src=x onerror=alert(1)>', 'javascript:alert(1)', '//evil.example/', 'https://evil.example/',
  '{"a":1}', '[]', 'null', 'true', '4242', '13/2020', '2019', '99', 'abc',
];

/** One hostile string. */
export const hostileString: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...TRICKS) },
  { weight: 2, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 2, arbitrary: fc.string({ unit: 'binary', maxLength: 40 }) },
  { weight: 1, arbitrary: fc.integer({ min: 3000, max: 20_000 }).map((n) => 'x'.repeat(n)) },
  { weight: 1, arbitrary: fc.integer().map(String) },
  { weight: 1, arbitrary: fc.double().map(String) },
  { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...TRICKS), fc.string({ maxLength: 10 })).map(([a, b]) => a + b) },
);

/** A hostile body with its content type. */
export interface HostileBody {
  contentType: string | null;
  body: string;
  label: string;
}

const XML_BOMB = '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;"><!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><respon>&lol3;</respon>';
const EXTERNAL_ENTITY = '<?xml version="1.0"?><!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><respon><order_no>&x;</order_no></respon>';

export const hostileBody: fc.Arbitrary<HostileBody> = fc.oneof(
  fc.constantFrom<HostileBody>(
    { contentType: 'application/xml', body: XML_BOMB, label: 'XML bomb' },
    { contentType: 'text/xml', body: EXTERNAL_ENTITY, label: 'external entity' },
    { contentType: 'application/json', body: `${'['.repeat(20_000)}${']'.repeat(20_000)}`, label: 'deep JSON array' },
    { contentType: 'application/json', body: `${'{"a":'.repeat(5000)}1${'}'.repeat(5000)}`, label: 'deep JSON object' },
    { contentType: 'application/x-www-form-urlencoded', body: `a=${'x'.repeat(1_100_000)}`, label: 'huge form body' },
    { contentType: 'application/json', body: '{"amount":', label: 'broken JSON' },
    { contentType: 'application/json', body: '{"__proto__":{"admin":true},"constructor":{"prototype":{"x":1}}}', label: 'prototype keys' },
    { contentType: 'multipart/form-data; boundary=zzz', body: '--zzz\r\nContent-Disposition: form-data; name="a"\r\n\r\n', label: 'broken multipart' },
    { contentType: 'text/plain', body: 'hello', label: 'text/plain' },
    { contentType: null, body: 'amount=1', label: 'no content type' },
    { contentType: 'application/x-www-form-urlencoded', body: '%E0%A4%A=1&%zz=2', label: 'bad percent-encoding' },
    { contentType: 'application/x-www-form-urlencoded', body: Array.from({ length: 5000 }, (_, i) => `f${String(i)}=1`).join('&'), label: 'many fields' },
  ),
  fc.record({ contentType: fc.constantFrom('application/json', 'application/x-www-form-urlencoded', 'text/plain', 'application/octet-stream'), body: fc.string({ maxLength: 500 }), label: fc.constant('random text') }),
  fc.record({
    contentType: fc.constant('application/json'),
    body: fc.json({ maxDepth: 4 }),
    label: fc.constant('random JSON'),
  }),
);

/** A form of `base` with one field set to a hostile value (or removed, or repeated). */
export function mutatedForm(base: Record<string, string>, fields: readonly string[]): fc.Arbitrary<{ field: string; form: Record<string, string>; raw: string }> {
  return fc.record({ field: fc.constantFrom(...fields), value: hostileString, mode: fc.constantFrom('set', 'set', 'set', 'drop', 'repeat') }).map(({ field, value, mode }) => {
    const form = { ...base };
    if (mode === 'drop') Reflect.deleteProperty(form, field);
    else form[field] = value;
    const params = new URLSearchParams(form);
    // A repeated field: the first occurrence is hostile, the second is the valid one.
    if (mode === 'repeat') {
      params.delete(field);
      params.append(field, value);
      params.append(field, base[field] ?? '');
    }
    return { field, form, raw: params.toString() };
  });
}
