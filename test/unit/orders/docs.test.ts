import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderStateDiagram, renderTransitionTable } from '../../../server/orders/state-diagram.js';
import { TRANSITIONS } from '../../../server/orders/state-machine.js';

const doc = readFileSync(new URL('../../../docs/orders.md', import.meta.url), 'utf8');

function between(name: string): string {
  const match = new RegExp(`<!-- ${name}:start -->\\n([\\s\\S]*?)\\n<!-- ${name}:end -->`).exec(doc);
  if (!match) throw new Error(`docs/orders.md has no ${name} block`);
  return match[1]!;
}

describe('docs/orders.md stays in sync with the transition table', () => {
  it('embeds the generated mermaid state diagram', () => {
    expect(between('state-diagram')).toBe(`\`\`\`mermaid\n${renderStateDiagram()}\n\`\`\``);
  });

  it('embeds the generated transition table', () => {
    expect(between('transition-table')).toBe(renderTransitionTable());
  });

  it('draws one edge per row of the table', () => {
    const edges = renderStateDiagram().split('\n').filter((l) => l.includes('-->') && !l.includes('[*]'));
    expect(edges).toHaveLength(Object.values(TRANSITIONS).flat().length);
  });
});
