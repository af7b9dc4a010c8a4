/** Card-number checks shared by the pay form and the redacting logger. */

/** Luhn (mod 10) check of a string of digits; false for anything that is not 12–19 digits. */
export function luhnValid(digits: string): boolean {
  if (!/^\d{12,19}$/.test(digits)) return false;
  let sum = 0;
  let double = false;
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48;
    if (double) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
    double = !double;
  }
  return sum % 10 === 0;
}

/** The gateway's masked form: first 6, `******`, last 4. */
export function maskCardNumber(digits: string): string {
  return `${digits.slice(0, 6)}******${digits.slice(-4)}`;
}
