import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { cardFree } from '../../server/orders/fact-schema.js';
import { consoleLogger, flatCopyNeedingNoRedaction, jsonNeedsNoRedaction, maskCardNumbers, redact, redactingLogger, silentLogger, type Logger } from '../../server/logging.js';

const PAN = '4111111111111111';

describe('redact', () => {
  it('masks Luhn-valid card numbers in free text, with or without separators', () => {
    expect(maskCardNumbers(`card ${PAN} declined`)).toBe('card [REDACTED CARD] declined');
    expect(maskCardNumbers('4111 1111 1111 1111')).toBe('[REDACTED CARD]');
    expect(maskCardNumbers('4111-1111-1111-1111')).toBe('[REDACTED CARD]');
  });

  it('leaves other digit runs alone', () => {
    expect(maskCardNumbers('order 20260131090507')).toBe('order 20260131090507');
    expect(maskCardNumbers('4111111111111112')).toBe('4111111111111112');
  });

  it('leaves gateway transaction ids alone even when their digits pass the Luhn check', () => {
    // 202611210520094 is Luhn-valid: the id is still not a card number and must survive intact.
    const id = 'SBX202611210520094PY44G';
    expect(maskCardNumbers(id)).toBe(id);
    expect(redact({ transaction_id: id, note: `paid as ${id}` })).toEqual({ transaction_id: id, note: `paid as ${id}` });
    expect(maskCardNumbers('card 4242424242424242 then SBX4242424242424242')).toBe('card [REDACTED CARD] then SBX4242424242424242');
  });

  it('removes card data and secrets by field name, at any depth', () => {
    const out = redact({
      card: PAN,
      security_code: '737',
      expiration_month: '07',
      expiration_year: '2031',
      sign_key: 'k',
      nested: [{ cvv: '123', note: `pan ${PAN}` }],
      order_no: 'A-1',
    }) as Record<string, unknown>;
    expect(out).toEqual({
      card: '[REDACTED]',
      security_code: '[REDACTED]',
      expiration_month: '[REDACTED]',
      expiration_year: '[REDACTED]',
      sign_key: '[REDACTED]',
      nested: [{ cvv: '[REDACTED]', note: 'pan [REDACTED CARD]' }],
      order_no: 'A-1',
    });
  });

  it('keeps the masked card the gateway returns', () => {
    expect(redact({ card: '411111******1111' })).toEqual({ card: '411111******1111' });
  });

  it('redacts errors, form parameters and leaves empty values as they are', () => {
    const error = redact(new Error(`bad ${PAN}`)) as Record<string, unknown>;
    expect(error.message).toBe('bad [REDACTED CARD]');
    expect(redact(new URLSearchParams({ card: PAN, a: 'b' }))).toEqual({ card: '[REDACTED]', a: 'b' });
    expect(redact({ card: '' })).toEqual({ card: '' });
  });
});

describe('redactingLogger', () => {
  it('redacts every object and message before the inner logger sees it', () => {
    const info = vi.fn();
    const inner: Logger = { ...silentLogger, info };
    redactingLogger(inner).info({ body: { card: PAN, security_code: '737' } }, `paying with ${PAN}`);
    expect(info).toHaveBeenCalledWith({ body: { card: '[REDACTED]', security_code: '[REDACTED]' } }, 'paying with [REDACTED CARD]');
  });

  it('drops a level the inner logger reports disabled before redacting anything', () => {
    const debug = vi.fn();
    const info = vi.fn();
    let enabled = false;
    const inner: Logger = { ...silentLogger, debug, info, isLevelEnabled: (level) => level !== 'debug' || enabled };
    const logger = redactingLogger(inner);
    let reads = 0;
    const watched = { get body(): string { reads++; return PAN; } };
    logger.debug(watched, `debug ${PAN}`);
    expect(debug).not.toHaveBeenCalled();
    expect(reads).toBe(0);
    expect(logger.isLevelEnabled?.('debug')).toBe(false);
    // Asked on every call: a level turned on later is logged, redacted.
    enabled = true;
    logger.debug(watched, `debug ${PAN}`);
    expect(reads).toBe(1);
    expect(debug).toHaveBeenCalledWith({ body: '[REDACTED CARD]' }, 'debug [REDACTED CARD]');
    logger.info({ card: PAN });
    expect(info).toHaveBeenCalledWith({ card: '[REDACTED]' }, undefined);
  });

  it('consoleLogger writes nothing, and redacts nothing, below its level', () => {
    const write = vi.spyOn(process.stderr, 'write').mockImplementation(() => true);
    try {
      const logger = consoleLogger('info');
      let reads = 0;
      logger.debug({ get body(): string { reads++; return 'x'; } }, 'quiet');
      expect(reads).toBe(0);
      expect(write).not.toHaveBeenCalled();
      logger.info({ card: PAN }, 'loud');
      expect(write).toHaveBeenCalledTimes(1);
      expect(String(write.mock.calls[0]?.[0])).toMatch(/"level":"info".*"card":"\[REDACTED\]"/);
    } finally {
      write.mockRestore();
    }
  });
});

describe('jsonNeedsNoRedaction', () => {
  const digits = fc.stringMatching(/^\d{10,19}$/);
  const text = fc.oneof(
    fc.string(),
    digits,
    fc.constantFrom('4242 4242 4242 4242', 'x\n4242424242424242', '\t4242424242424242', '"4242424242424242', '424242******4242', 'SBX202611210520094PY44G', 'SBX4242424242424242'),
    fc.tuple(fc.constantFrom('', ' ', 'A', '-', '\\', '\u0001', 'é'), digits).map(([before, run]) => before + run),
  );
  const key = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('card', 'CVV', 'security_code', 'Expiry', 'note', 'cardx'));
  const data = fc.letrec((tie) => ({
    value: fc.oneof({ depthSize: 'small' }, text, fc.integer(), fc.double({ noNaN: true }), fc.boolean(), fc.constant(null), tie('object'), tie('array')),
    object: fc.dictionary(key, tie('value'), { maxKeys: 4 }),
    array: fc.array(tie('value'), { maxLength: 3 }),
  })).object;

  it('only says "nothing to redact" when redact would indeed change nothing', () => {
    fc.assert(
      fc.property(data, (value) => {
        const json = JSON.stringify(value);
        const plain = JSON.parse(json) as unknown;
        if (jsonNeedsNoRedaction(json)) expect(redact(plain)).toEqual(plain);
      }),
      { numRuns: 2000 },
    );
  });

  it('sends card numbers, secret keys and deep nesting to the full redaction', () => {
    expect(jsonNeedsNoRedaction(JSON.stringify({ note: 'call 4242 4242 4242 4242' }))).toBe(false);
    expect(jsonNeedsNoRedaction(JSON.stringify({ note: 'line\n4242424242424242' }))).toBe(false);
    expect(jsonNeedsNoRedaction(JSON.stringify({ nested: { CVV: '737' } }))).toBe(false);
    let deep: unknown = 'x';
    for (let i = 0; i < 13; i++) deep = { deep };
    expect(jsonNeedsNoRedaction(JSON.stringify(deep))).toBe(false);
    expect(jsonNeedsNoRedaction(JSON.stringify({ resultCode: '0000', card: undefined, orderNo: 'A-1', amount: 2500 }))).toBe(true);
    // Transaction ids carry long (even Luhn-valid) digit runs glued to letters: nothing to mask.
    expect(jsonNeedsNoRedaction(JSON.stringify({ transaction_id: 'SBX202611210520094PY44G', order_no: 'N-0000001' }))).toBe(true);
    expect(jsonNeedsNoRedaction(JSON.stringify({ note: 'paid 4242424242424242' }))).toBe(false);
    // Keys that lower-case to a secret's name through a non-ASCII letter (the Kelvin sign is k).
    for (const key of ['sign_\u212Aey', 'to\u212Aen_id', 'paymentto\u212Aen', 'coo\u212Aie']) {
      const data = { [key]: 'tok_abcdef123456789' };
      expect(jsonNeedsNoRedaction(JSON.stringify(data))).toBe(false);
      expect(cardFree(data, silentLogger)[key]).not.toBe('tok_abcdef123456789');
    }
  });
});

describe('flatCopyNeedingNoRedaction', () => {
  const text = fc.oneof(
    fc.string(),
    fc.stringMatching(/^\d{10,19}$/),
    fc.constantFrom('4242 4242 4242 4242', 'x\n4242424242424242', '424242******4242', 'SBX202611210520094PY44G', 'token_id=TK7f3a9c2e4b1d8f60', 'paymentToken'),
  );
  const key = fc.oneof(fc.string({ maxLength: 8 }), fc.constantFrom('card', 'CVV', 'Expiry', 'token_id', 'note', 'transactionId', '__proto__', 'TokenId2'));
  const value = fc.oneof(text, fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constant(undefined), fc.constant(-0), fc.dictionary(fc.string(), fc.string(), { maxKeys: 2 }), fc.array(fc.integer(), { maxLength: 2 }));
  const flat = fc.dictionary(key, value, { maxKeys: 6 });

  it('gives what a JSON round trip gives, and only when redact would change nothing', () => {
    fc.assert(
      fc.property(flat, (data) => {
        const copy = flatCopyNeedingNoRedaction(data);
        if (copy === null) return;
        const plain = JSON.parse(JSON.stringify(data)) as unknown;
        expect(copy).toStrictEqual(plain);
        expect(redact(plain)).toStrictEqual(plain);
        expect(copy).not.toBe(data);
      }),
      { numRuns: 3000 },
    );
  });

  it('copies the fields of an ordinary event and leaves anything doubtful to the full path', () => {
    expect(flatCopyNeedingNoRedaction({ transactionId: 'SBX202611210520094PY44G', amount: 2500, currency: 'EUR', maskedCard: '424242******4242', settled: true, note: null, gone: undefined }))
      .toStrictEqual({ transactionId: 'SBX202611210520094PY44G', amount: 2500, currency: 'EUR', maskedCard: '424242******4242', settled: true, note: null });
    expect(flatCopyNeedingNoRedaction({ note: 'paid 4242424242424242' })).toBeNull();
    expect(flatCopyNeedingNoRedaction({ cvv: '' })).toBeNull();
    expect(flatCopyNeedingNoRedaction({ TokenId: 'TK7f3a9c2e4b1d8f60' })).toBeNull();
    expect(flatCopyNeedingNoRedaction({ body: 'token_id=TK7f3a9c2e4b1d8f60' })).toBeNull();
    expect(flatCopyNeedingNoRedaction({ nested: { a: 1 } })).toBeNull();
    expect(flatCopyNeedingNoRedaction({ at: new Date(0) })).toBeNull();
    expect(flatCopyNeedingNoRedaction({ n: Number.NaN })).toBeNull();
    expect(flatCopyNeedingNoRedaction(new URLSearchParams('a=1') as unknown as Record<string, unknown>)).toBeNull();
  });
});

describe('stored-card tokens', () => {
  it('keeps only the last four characters of a token under any of its names', () => {
    const token = 'TK7f3a9c2e4b1d8f60a2c4';
    const out = redact({ token_id: token, nested: { tokenId: token, paymentToken: token }, list: [{ TOKEN_ID: token }], empty: { token_id: '' } });
    expect(JSON.stringify(out)).not.toContain(token.slice(0, -4));
    expect(out).toEqual({ token_id: `…${token.slice(-4)}`, nested: { tokenId: `…${token.slice(-4)}`, paymentToken: `…${token.slice(-4)}` }, list: [{ TOKEN_ID: `…${token.slice(-4)}` }], empty: { token_id: '' } });
    expect(redact({ token_id: 'short' })).toEqual({ token_id: '[REDACTED]' });
  });

  it('masks tokens written in free text: XML, JSON and form bodies', () => {
    const token = 'TK29ZVNY6UH4CG2B9LAX5348';
    const texts = [`<respon><token_id>${token}</token_id></respon>`, `{"token_id":"${token}","x":1}`, `a=1&token_id=${token}&b=2`, `paymentToken=${token}`];
    for (const text of texts) {
      const out = redact({ body: text }) as { body: string };
      expect(out.body).not.toContain(token);
      expect(out.body).toContain('…5348');
    }
    expect(redact({ body: '<token_id></token_id>' })).toEqual({ body: '<token_id></token_id>' });
  });

  it('sends JSON holding a token to the full redaction', () => {
    expect(jsonNeedsNoRedaction(JSON.stringify({ token_id: 'TK7f3a9c2e4b1d8f60a2c4' }))).toBe(false);
    expect(jsonNeedsNoRedaction(JSON.stringify({ body: '<token_id>TK7f3a9c2e4b1d8f60a2c4</token_id>' }))).toBe(false);
    expect(jsonNeedsNoRedaction(JSON.stringify({ savedCardId: '0190-abc' }))).toBe(true);
  });

  it('a redacting logger never writes a token in full', () => {
    const lines: unknown[] = [];
    const inner: Logger = { debug: (o) => lines.push(o), info: (o) => lines.push(o), warn: (o) => lines.push(o), error: (o) => lines.push(o) };
    redactingLogger(inner).info({ token_id: 'TK7f3a9c2e4b1d8f60a2c4' }, 'saved');
    expect(JSON.stringify(lines)).not.toContain('TK7f3a9c2e4b1d8f60a2c4');
  });
});
