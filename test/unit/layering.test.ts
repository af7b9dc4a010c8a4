/**
 * The import rules of server/ (.dependency-cruiser.mjs, docs/architecture.md): no circular
 * imports, no import from a layer above, the sandbox never reaches server/gateway, and the
 * package never imports its tests or examples. Run through dependency-cruiser's API; a failure
 * lists every violation as `rule: from → to`.
 */
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { cruise, type ICruiseOptions, type ICruiseResult, type IViolation } from 'dependency-cruiser';
import { beforeAll, describe, expect, it } from 'vitest';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const config = (await import(pathToFileURL(join(ROOT, '.dependency-cruiser.mjs')).href) as { default: {
  forbidden: NonNullable<ICruiseOptions['ruleSet']>['forbidden'];
  options: ICruiseOptions;
} }).default;

function describeViolation(v: IViolation): string {
  const cycle = v.cycle === undefined ? '' : ` (${v.cycle.map((step) => step.name).join(' → ')})`;
  return `${v.rule.name}: ${v.from} → ${v.to}${cycle}`;
}

async function cruiseServer(): Promise<ICruiseResult> {
  const result = await cruise(['server'], { ...config.options, ruleSet: { forbidden: config.forbidden }, validate: true, baseDir: ROOT });
  if (typeof result.output === 'string') throw new Error('dependency-cruiser returned text, not a result');
  return result.output;
}

describe('layering of server/', () => {
  let result: ICruiseResult;
  beforeAll(async () => {
    result = await cruiseServer();
  }, 120_000);

  it('breaks no import rule', () => {
    expect(result.summary.totalCruised).toBeGreaterThan(100);
    expect(result.summary.violations.map(describeViolation)).toEqual([]);
  });
});
