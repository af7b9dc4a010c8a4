/**
 * Renders the transition table as a mermaid state diagram. docs/orders.md embeds the output and
 * a test fails when the two drift apart.
 */
import { TRANSITIONS } from './state-machine.js';
import { ORDER_STATES } from './types.js';
import type { OrderState } from './types.js';

const ENDED: readonly OrderState[] = ['declined', 'failed', 'cancelled', 'expired'];

function label(from: OrderState, to: OrderState): string {
  if (ENDED.includes(from)) return ' : late money (attention)';
  if (to === 'chargeback') return ' : attention';
  if (from === to) return ' : more refunded';
  if (from === 'authorized' && to === 'paid') return ' : capture';
  if (from === 'authorized' && to === 'cancelled') return ' : void';
  if (from === 'authorized' && to === 'expired') return ' : lapsed';
  if (from === 'in_review') return ' : review';
  return '';
}

export function renderStateDiagram(): string {
  const lines = ['stateDiagram-v2', '    [*] --> created'];
  for (const from of ORDER_STATES) {
    for (const to of TRANSITIONS[from]) lines.push(`    ${from} --> ${to}${label(from, to)}`);
  }
  return lines.join('\n');
}

/** The table as markdown rows (`| from | to… |`), for documentation. */
export function renderTransitionTable(): string {
  const rows = ['| from | allowed to |', '|---|---|'];
  for (const from of ORDER_STATES) {
    const to = TRANSITIONS[from];
    rows.push(`| \`${from}\` | ${to.length === 0 ? '(none)' : to.map((s) => `\`${s}\``).join(', ')} |`);
  }
  return rows.join('\n');
}
