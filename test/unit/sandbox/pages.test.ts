import { describe, expect, it } from 'vitest';
import { contentSecurityPolicy, Pages } from '../../../server/sandbox/pages.js';

describe('sandbox pages', () => {
  it('builds a strict CSP whose form-action lists only the origins posted to', () => {
    const csp = contentSecurityPolicy('abc', ['https://shop.example/return?x=1', 'javascript:alert(1)', "https://x.example/'; script-src *"]);
    expect(csp).toBe(
      "default-src 'none'; script-src 'nonce-abc'; style-src 'nonce-abc'; img-src 'self' data:; form-action https://shop.example https://x.example; frame-ancestors 'none'; base-uri 'none'",
    );
    expect(contentSecurityPolicy('n', ['/_sandbox/reset'])).toContain("form-action 'self';");
    expect(contentSecurityPolicy('n', [])).toContain("form-action 'none';");
  });

  it('renders an auto-submit page with a fresh nonce, escaped values and a noscript button', () => {
    const pages = new Pages();
    const a = pages.autosubmit('https://shop.example/r', { note: '"><script>x</script>' }, { title: { key: 'sandbox.returningTitle' }, message: { key: 'sandbox.redirecting' }, lang: 'en' });
    const b = pages.autosubmit('https://shop.example/r', {}, { title: { key: 'sandbox.returningTitle' }, message: { key: 'sandbox.redirecting' }, lang: 'en' });
    const nonceA = /'nonce-([^']+)'/.exec(a.headers?.['Content-Security-Policy'] ?? '')?.[1];
    const nonceB = /'nonce-([^']+)'/.exec(b.headers?.['Content-Security-Policy'] ?? '')?.[1];
    expect(nonceA).toBeDefined();
    expect(nonceA).not.toBe(nonceB);
    expect(a.body).toContain(`<script nonce="${nonceA ?? ''}">`);
    expect(a.body).toContain(`<style nonce="${nonceA ?? ''}">`);
    expect(a.body).not.toContain('<script>x</script>');
    expect(a.body).toContain('<noscript><button type="submit">Continue</button></noscript>');
    expect(a.headers?.['Content-Security-Policy']).toContain('form-action https://shop.example;');
  });
});
