/**
 * Every HTML page a scenario sees passes through here: it must carry the strict CSP (nonce'd
 * scripts, no 'unsafe-inline', default-src 'none', frame-ancestors 'none'), use no inline event
 * handler, style attribute or javascript: URL, and show no card data. Every answer, HTML or
 * not, must carry `X-Content-Type-Options: nosniff`.
 */
import type { CardScanner } from './card-scan.js';

export class PageChecker {
  pages = 0;
  readonly kinds = new Set<string>();
  readonly cspFailures: string[] = [];
  readonly inlineFailures: string[] = [];
  /** Every answer seen (any type), and those without `X-Content-Type-Options: nosniff`. */
  answers = 0;
  readonly noSniffFailures: string[] = [];

  constructor(
    private readonly scanner: CardScanner,
    /** Answers the scenario made up itself (a fault's HTTP 500 page stands for a broken gateway). */
    private readonly skip: (url: string, status: number) => boolean = () => false,
  ) {}

  observe(url: string, status: number, headers: Headers, body: string): void {
    if (this.skip(url, status)) return;
    this.answers++;
    if (headers.get('x-content-type-options') !== 'nosniff') this.noSniffFailures.push(`${String(status)} ${url}`);
    const type = headers.get('content-type') ?? '';
    if (!type.includes('text/html')) return;
    this.pages++;
    const path = new URL(url).pathname.replace(/\/[A-Za-z0-9_-]{16,}(?:\.[A-Za-z0-9_-]+)?/g, '/:id');
    this.kinds.add(`${String(status)} ${path}`);
    const where = `${String(status)} ${path}`;
    const csp = headers.get('content-security-policy') ?? '';
    const problems = cspProblems(csp, body);
    if (problems.length > 0) this.cspFailures.push(`${where}: ${problems.join(', ')}`);
    const inline = inlineProblems(body);
    if (inline.length > 0) this.inlineFailures.push(`${where}: ${inline.join(', ')}`);
    // The sandbox's card page lists its public test cards as help; that is not shopper data.
    this.scanner.text(`page ${where}`, body.replace(/Test cards:[^<]*/g, ''));
  }
}

function directive(csp: string, name: string): string | null {
  for (const part of csp.split(';')) {
    const trimmed = part.trim();
    if (trimmed === name || trimmed.startsWith(`${name} `)) return trimmed.slice(name.length).trim();
  }
  return null;
}

export function cspProblems(csp: string, body: string): string[] {
  if (csp === '') return ['no Content-Security-Policy header'];
  const problems: string[] = [];
  if (directive(csp, 'default-src') !== "'none'") problems.push("default-src is not 'none'");
  if (directive(csp, 'frame-ancestors') !== "'none'") problems.push("frame-ancestors is not 'none'");
  if (directive(csp, 'base-uri') === null) problems.push('no base-uri');
  if (directive(csp, 'form-action') === null) problems.push('no form-action');
  if (/'unsafe-inline'|'unsafe-eval'|\*/.test(csp)) problems.push('unsafe source or wildcard');
  // Script and style elements run only with the page's nonce.
  for (const [element, source] of [['script', 'script-src'], ['style', 'style-src']] as const) {
    const nonce = /'nonce-([A-Za-z0-9+/=_-]+)'/.exec(directive(csp, source) ?? '')?.[1];
    for (const tag of body.matchAll(new RegExp(`<${element}\\b[^>]*>`, 'gi'))) {
      const tagNonce = /\bnonce="([^"]*)"/.exec(tag[0])?.[1];
      if (nonce === undefined || tagNonce !== nonce) problems.push(`a ${element} element without the page nonce`);
    }
  }
  return problems;
}

export function inlineProblems(body: string): string[] {
  const problems: string[] = [];
  for (const tag of body.matchAll(/<[a-z][^>]*>/gi)) {
    const text = tag[0];
    if (/\son[a-z]+\s*=/i.test(text)) problems.push(`inline handler in ${text.slice(0, 60)}`);
    if (/\sstyle\s*=/i.test(text)) problems.push(`style attribute in ${text.slice(0, 60)}`);
    if (/=\s*["']?\s*javascript:/i.test(text)) problems.push(`javascript: URL in ${text.slice(0, 60)}`);
  }
  return problems;
}
