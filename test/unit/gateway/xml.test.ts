import fc from 'fast-check';
import { XMLBuilder } from 'fast-xml-parser';
import { describe, expect, it } from 'vitest';
import { ProtocolError } from '../../../server/errors.js';
import type { RiskReason } from '../../../server/gateway/schemas/responses.js';
import { buildResponXml, MAX_XML_BYTES, parseAuthoriseXml, readFlatRespon, readGeneralRespon, type ResponXmlFields } from '../../../server/gateway/xml.js';
import { authoriseFixture } from '../../fixtures/wire/authorise.js';

const expectMalformed = (xml: string): void => {
  try {
    parseAuthoriseXml(xml);
    expect.unreachable('parsed hostile XML');
  } catch (error) {
    expect(error).toBeInstanceOf(ProtocolError);
    expect((error as ProtocolError).code).toBe('ERR_PROTOCOL_MALFORMED');
  }
};

describe('parseAuthoriseXml', () => {
  it('keeps every value a string (no number coercion)', () => {
    const out = parseAuthoriseXml(
      '<?xml version="1.0" encoding="UTF-8"?><respon><order_no>001</order_no><amount>10.00</amount><currency>USD</currency>' +
        '<order_status>1</order_status><result_info>0000:Success</result_info><risk_score>0050</risk_score><token_id></token_id></respon>',
    );
    expect(out).toMatchObject({ order_no: '001', amount: '10.00', order_status: '1', result_info: '0000:Success', risk_score: '0050', token_id: '' });
  });

  it('reads risk_reasons as a list of {name, status} in each published shape', () => {
    const repeated = parseAuthoriseXml(
      '<respon><order_no>A</order_no><risk_reasons><name>ip</name><status>PASS</status></risk_reasons><risk_reasons><name>bin</name><status>REVIEW</status></risk_reasons></respon>',
    );
    expect(repeated.risk_reasons).toEqual([{ name: 'ip', status: 'PASS' }, { name: 'bin', status: 'REVIEW' }]);
    const pairs = parseAuthoriseXml('<respon><order_no>A</order_no><risk_reasons><name>a</name><status>1</status><name>b</name><status>2</status></risk_reasons></respon>');
    expect(pairs.risk_reasons).toEqual([{ name: 'a', status: '1' }, { name: 'b', status: '2' }]);
    const wrapped = parseAuthoriseXml('<respon><order_no>A</order_no><risk_reasons><reason><name>a</name><status>1</status></reason><reason><name>b</name><status>2</status></reason></risk_reasons></respon>');
    expect(wrapped.risk_reasons).toEqual([{ name: 'a', status: '1' }, { name: 'b', status: '2' }]);
    expect(parseAuthoriseXml('<respon><order_no>A</order_no><risk_reasons/></respon>').risk_reasons).toEqual([]);
  });

  it('decodes the predefined entities once and never expands further', () => {
    const out = parseAuthoriseXml('<respon><order_no>A</order_no><issuer_url>https://i.example/p?a=1&amp;b=2</issuer_url><note>&amp;lt;x&#65;&#x42;</note></respon>');
    expect(out.issuer_url).toBe('https://i.example/p?a=1&b=2');
    expect(out.note).toBe('&lt;xAB');
  });

  it('strips unknown elements', () => {
    const out = parseAuthoriseXml('<respon><order_no>A</order_no><extra><deep>1</deep></extra></respon>');
    expect(out).toEqual({ order_no: 'A' });
  });

  it('refuses entity declarations (billion laughs) and any DOCTYPE', () => {
    expectMalformed(
      '<?xml version="1.0"?><!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;&lol;">' +
        '<!ENTITY lol3 "&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;&lol2;">]><respon><order_no>&lol3;</order_no></respon>',
    );
    expectMalformed('<!DOCTYPE respon SYSTEM "http://evil.example/x.dtd"><respon><order_no>A</order_no></respon>');
    expectMalformed('<!doctype respon><respon><order_no>A</order_no></respon>');
  });

  it('refuses input over the size limit', () => {
    expectMalformed(`<respon><order_no>A</order_no><note>${'x'.repeat(MAX_XML_BYTES)}</note></respon>`);
  });

  it('refuses a wrong root, several roots, no root and broken XML', () => {
    expectMalformed('<response><order_no>A</order_no></response>');
    expectMalformed('<respon><order_no>A</order_no></respon><respon><order_no>B</order_no></respon>');
    expectMalformed('<respon><order_no>A</order_no></respon><other/>');
    expectMalformed('');
    expectMalformed('{"order_no":"A"}');
    expectMalformed('<respon><order_no>A</amount></respon>');
  });

  it('refuses prototype keys', () => {
    expectMalformed('<respon><order_no>A</order_no><__proto__><polluted>1</polluted></__proto__></respon>');
    expectMalformed('<respon><order_no>A</order_no><constructor><prototype>1</prototype></constructor></respon>');
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('refuses known elements that are repeated or nested, and bad formats', () => {
    expectMalformed('<respon><order_no>A</order_no><amount>1.00</amount><amount>2.00</amount></respon>');
    expectMalformed('<respon><order_no>A</order_no><amount><x>1</x></amount></respon>');
    expectMalformed('<respon><order_no>A</order_no><amount>ten</amount></respon>');
    expectMalformed('<respon><amount>1.00</amount></respon>');
  });
});

describe('the flat reader of the usual reply', () => {
  /** The general path's answer, or null when it refuses. */
  const general = (xml: string): Record<string, unknown> | null => {
    try {
      return readGeneralRespon(xml);
    } catch (error) {
      expect(error).toBeInstanceOf(ProtocolError);
      return null;
    }
  };

  it('reads the gateway\'s reply itself, as the general path does', () => {
    const fields = readFlatRespon(authoriseFixture.reply.body);
    expect(fields).not.toBeNull();
    expect(fields).toEqual(readGeneralRespon(authoriseFixture.reply.body));
    const reply = buildResponXml({ order_no: 'A&B', note: ' <x> ', risk_reasons: [{ name: 'a', status: '1' }, { name: 'b', status: '2' }] });
    expect(readFlatRespon(reply)).toEqual(readGeneralRespon(reply));
  });

  it('leaves to the general path every shape it does not read', () => {
    for (const xml of [
      '<respon><order_no>A</order_no><amount>1.00</amount><amount>2.00</amount></respon>',
      '<respon><order_no>A</order_no><extra><deep>1</deep></extra></respon>',
      '<respon><order_no>A</order_no><risk_reasons><reason><name>a</name></reason></risk_reasons></respon>',
      '<respon><order_no a="1">A</order_no></respon>',
      '<respon><!-- c --><order_no>A</order_no></respon>',
      '<respon><order_no><![CDATA[A]]></order_no></respon>',
      '<respon><order_no>A&foo;</order_no></respon>',
      '<respon><order_no>A</amount></respon>',
      '<respon><__proto__>1</__proto__></respon>',
      '<respon><toString>1</toString></respon>',
      '<respon>text<order_no>A</order_no></respon>',
      '<respon><order_no>A</order_no></respon><respon/>',
      ' <?xml version="1.0"?><respon/>',
    ]) {
      expect(readFlatRespon(xml), xml).toBeNull();
    }
  });

  it('reads element names of up to 100 characters, as the general path does, and leaves longer ones to it', () => {
    const long = `a1_.-${'b'.repeat(95)}`;
    const xml = `<respon>\t\r\n<order_no>A</order_no><${long}> x </${long}><${long.slice(0, 99)}/></respon>\r\n`;
    expect(readFlatRespon(xml)).toEqual({ order_no: 'A', [long]: 'x', [long.slice(0, 99)]: '' });
    expect(readFlatRespon(xml)).toEqual(readGeneralRespon(xml));
    expect(readFlatRespon(`<respon><${long}b>x</${long}b></respon>`)).toBeNull();
    expect(readFlatRespon('<respon><order_no>A</order_no/></respon>')).toBeNull();
    expect(readFlatRespon('<respon><order_no>A</order_nox></respon>')).toBeNull();
    expect(readFlatRespon('<respon><risk_reasons><names>a</names></risk_reasons></respon>')).toBeNull();
  });

  it('never accepts what the general path refuses, and answers as it does (property)', () => {
    const name = fc.constantFrom('respon', 'order_no', 'amount', 'note', 'risk_reasons', 'name', 'status', 'x', '__proto__', 'constructor', 'toString', 'a.b-c');
    const text = fc.oneof(
      fc.string({ unit: fc.constantFrom('a', '0', ' ', '\n', '\t', '\u00a0', '>', '"', "'", ';', '#', 'x', '&', '&amp;', '&lt;', '&#65;', '&#x42;', '&#0;', '&#1114112;', '&foo;', '&#x;', 'é', '\u0001', ']]>') }),
      fc.string(),
    );
    const piece = fc.oneof(
      name.map((n) => `<${n}>`),
      name.map((n) => `</${n}>`),
      name.map((n) => `<${n}/>`),
      text,
      fc.constantFrom('<?xml version="1.0" encoding="UTF-8"?>', '<?xml version="1.0"?>', '<!-- c -->', '<![CDATA[<a>]]>', '<a b="1">', '</ respon>', ' ', '<', '>'),
    );
    // Mostly the reply's own shape, with pieces spliced in.
    const element = fc.tuple(name, text).map(([n, t]) => `<${n}>${t}</${n}>`);
    const reasons = fc.array(fc.tuple(fc.constantFrom('name', 'status'), text), { maxLength: 4 })
      .map((children) => `<risk_reasons>${children.map(([n, t]) => `<${n}>${t}</${n}>`).join('')}</risk_reasons>`);
    const body = fc.array(fc.oneof(element, reasons, piece, fc.constant(' \n ')), { maxLength: 8 }).map((parts) => parts.join(''));
    const documents = fc.oneof(
      fc.tuple(fc.constantFrom('', '<?xml version="1.0" encoding="UTF-8"?>', ' '), body, fc.constantFrom('', ' \n', '<x/>'))
        .map(([head, inner, tail]) => `${head}<respon>${inner}</respon>${tail}`),
      fc.array(piece, { maxLength: 12 }).map((parts) => parts.join('')),
    );
    let read = 0;
    fc.assert(
      fc.property(documents, (xml) => {
        const flat = readFlatRespon(xml);
        if (flat === null) return;
        read++;
        expect(flat).toEqual(general(xml));
      }),
      { numRuns: 5000 },
    );
    // The property says something only if the flat reader took a good share of the documents.
    expect(read).toBeGreaterThan(200);
  });
});

describe('buildResponXml', () => {
  it('round-trips through the parser, escaping text', () => {
    const fields = {
      merchant_id: '701001',
      order_no: 'A<&>"1',
      amount: '0010.00',
      currency: 'USD',
      order_status: '1',
      result_info: '0000:Success',
      issuer_url: 'https://i.example/?a=1&b=2',
      token_id: '',
      risk_reasons: [{ name: 'ip & bin', status: 'PASS' }, { name: 'velocity', status: 'REVIEW' }],
      note: undefined,
    };
    const xml = buildResponXml(fields);
    expect(xml.startsWith('<?xml version="1.0" encoding="UTF-8"?><respon>')).toBe(true);
    expect(xml).not.toContain('<note>');
    expect(xml).toContain('a=1&amp;b=2');
    const { note: _note, ...expected } = fields;
    expect(parseAuthoriseXml(xml)).toEqual(expected);
  });

  it('writes exactly what a general XML builder writes, byte for byte', () => {
    // The reference: fast-xml-parser's builder, as the reply was built before it was a string.
    // eslint-disable-next-line @typescript-eslint/no-deprecated
    const builder = new XMLBuilder({ processEntities: true, suppressEmptyNode: false, format: false });
    const reference = (fields: ResponXmlFields): string => {
      const body: Record<string, unknown> = {};
      for (const [key, value] of Object.entries(fields)) {
        if (value === undefined) continue;
        body[key] = typeof value === 'string' ? value : value.map((r) => ({ name: r.name, status: r.status }));
      }
      return `<?xml version="1.0" encoding="UTF-8"?>${builder.build({ respon: body })}`;
    };
    // Text heavy in the characters that need escaping, entity look-alikes and non-ASCII.
    const text = fc.oneof(
      fc.string({ unit: fc.constantFrom('&', '<', '>', '"', "'", ';', '#', 'a', 'Z', '0', ' ', 'é', '€', '\n', '&amp;') }),
      fc.string({ unit: 'grapheme' }),
      fc.string(),
    );
    const reasons = fc.array(fc.record({ name: text, status: text }), { maxLength: 4 }) as fc.Arbitrary<RiskReason[]>;
    const key = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_.-]{0,20}$/).filter((k) => !['constructor', 'prototype'].includes(k));
    const fields = fc.dictionary(key, fc.oneof(text, reasons, fc.constant(undefined)), { maxKeys: 25 });
    fc.assert(
      fc.property(fields, (value) => {
        expect(buildResponXml(value)).toBe(reference(value));
      }),
      { numRuns: 2000 },
    );
    const reply = {
      merchant_id: '701001', account_id: '701001010', order_no: 'O-1', amount: '25.00', currency: 'USD', transaction_id: 'SBX1',
      order_status: '1', card: '424242******4242', result_info: '0000:Success', contract_name: '', note: 'a "b" & <c>',
      risk_reasons: [{ name: 'card_bin', status: 'ACCEPT' }], issuer_url: undefined, encryption_data: 'f'.repeat(64),
    };
    expect(buildResponXml(reply)).toBe(reference(reply));
    expect(buildResponXml({})).toBe(reference({}));
  });

  it('refuses unsafe element names', () => {
    expect(() => buildResponXml({ 'a b': 'x' })).toThrow(ProtocolError);
    expect(() => buildResponXml({ __proto__x: 'x', ['<x>']: 'y' })).toThrow(ProtocolError);
  });
});
