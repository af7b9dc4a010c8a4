/**
 * Short secrets (a CVV, an expiry year) are a few digits, and any hash, id or timestamp may
 * contain those digits by chance. A leak is the secret standing on its own: not inside a longer
 * run of letters or digits.
 */
export function containsStandalone(text: string, secret: string): boolean {
  const escaped = secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  return new RegExp(`(?<![0-9A-Za-z])${escaped}(?![0-9A-Za-z])`).test(text);
}
