/**
 * Writes the XML `respon` of /v1/authorise: one flat root element named `respon`, one child
 * per field in the order given, `risk_reasons` repeated with `name` and `status` children
 * (interface "Direct payment response"). Text is escaped; nothing else is needed for a flat
 * document.
 */
export interface ResponReason {
  name: string;
  status: string;
}

export type ResponFields = Readonly<Record<string, string | readonly ResponReason[] | undefined>>;

const ESCAPES: Readonly<Record<string, string>> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', "'": '&apos;', '"': '&quot;' };
const escape = (value: string): string => value.replace(/[&<>'"]/g, (c) => ESCAPES[c] ?? c);
const ELEMENT_NAME_RE = /^[A-Za-z_][A-Za-z0-9_.-]{0,99}$/;

export function responXml(fields: ResponFields): string {
  let xml = '<?xml version="1.0" encoding="UTF-8"?><respon>';
  for (const [name, value] of Object.entries(fields)) {
    if (value === undefined) continue;
    if (!ELEMENT_NAME_RE.test(name)) throw new Error(`"${name}" is not an element name`);
    if (typeof value === 'string') {
      xml += `<${name}>${escape(value)}</${name}>`;
      continue;
    }
    for (const reason of value) xml += `<${name}><name>${escape(reason.name)}</name><status>${escape(reason.status)}</status></${name}>`;
  }
  return `${xml}</respon>`;
}
