/**
 * Local payment methods whose payer must be identified: Brazil's Pix and boleto need the
 * payer's CPF (11 digits) or CNPJ (14 digits), so the APM request must carry
 * `person.document_number` for them or the gateway declines it.
 */
export const PERSON_DATA_METHODS: readonly string[] = ['PIX', 'BOLETO'];

/** The tax documents these methods take, by number of digits. */
export const PERSON_DOCUMENT_TYPES = { CPF: 11, CNPJ: 14 } as const;
export type PersonDocumentType = keyof typeof PERSON_DOCUMENT_TYPES;

export function needsPersonData(paymentMethod: string): boolean {
  return PERSON_DATA_METHODS.includes(paymentMethod.toUpperCase());
}
