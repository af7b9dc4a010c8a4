/**
 * Alternative payment methods the sandbox offers (through optimise and authorise). Acceptance
 * rates are made up but stable, and higher in a method's home country, so ranking is visible.
 */
export interface ApmMethod {
  code: string;
  name: string;
  countries: readonly string[];
  baseRate: number;
  /**
   * The payer must be identified by a tax document (Brazil's CPF/CNPJ for Pix and boleto): the
   * sandbox refuses the request without `person.document_number`, as the real methods do.
   */
  needsPerson?: boolean;
}

export const APM_METHODS: readonly ApmMethod[] = [
  { code: 'IDEAL', name: 'iDEAL', countries: ['NL'], baseRate: 0.62 },
  { code: 'PIX', name: 'Pix', countries: ['BR'], baseRate: 0.6, needsPerson: true },
  { code: 'BANCONTACT', name: 'Bancontact', countries: ['BE'], baseRate: 0.55 },
  { code: 'BOLETO', name: 'Boleto Bancário', countries: ['BR'], baseRate: 0.4, needsPerson: true },
  { code: 'SOFORT', name: 'Sofort', countries: ['DE', 'AT'], baseRate: 0.5 },
  { code: 'OXXO', name: 'OXXO', countries: ['MX'], baseRate: 0.45 },
];

export function findApmMethod(code: string): ApmMethod | undefined {
  const wanted = code.toUpperCase();
  return APM_METHODS.find((m) => m.code === wanted);
}

/** Methods ranked for a shopper: home-country methods first, by acceptance rate. */
export function rankMethods(country: string | undefined): { payment_method: string; name: string; acceptance_rate: number }[] {
  return APM_METHODS.map((m) => {
    const home = country !== undefined && m.countries.includes(country);
    const rate = Math.min(0.99, home ? m.baseRate + 0.3 : m.baseRate);
    return { payment_method: m.code, name: m.name, acceptance_rate: Math.round(rate * 100) / 100 };
  }).sort((a, b) => b.acceptance_rate - a.acceptance_rate || a.payment_method.localeCompare(b.payment_method));
}
