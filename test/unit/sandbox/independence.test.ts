/**
 * The sandbox is a second reading of the interface: nothing under server/sandbox may import from
 * server/gateway (schemas, signing, money, codes, XML, wire), directly or through another module
 * outside the sandbox.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
const SANDBOX = join(root, 'server/sandbox');
const GATEWAY = join(root, 'server/gateway');
const SPECIFIER_RE = /(?:import|export)\s[^'"]*?from\s*['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) =>
    entry.isDirectory() ? tsFiles(join(dir, entry.name)) : entry.name.endsWith('.ts') ? [join(dir, entry.name)] : [],
  );
}

/** Relative imports of a file, resolved to .ts paths. */
function importsOf(file: string): string[] {
  const out: string[] = [];
  for (const match of readFileSync(file, 'utf8').matchAll(SPECIFIER_RE)) {
    const specifier = match[1] ?? match[2] ?? '';
    if (specifier.startsWith('.')) out.push(resolve(dirname(file), specifier).replace(/\.js$/, '.ts'));
  }
  return out;
}

/** Every path from `files` into server/gateway, following relative imports outside it. */
function gatewayImports(files: readonly string[]): string[] {
  const offending: string[] = [];
  const seen = new Set<string>();
  const visit = (file: string, from: string): void => {
    if (file.startsWith(GATEWAY)) {
      offending.push(`${relative(root, from)} → ${relative(root, file)}`);
      return;
    }
    if (seen.has(file)) return;
    seen.add(file);
    let imports: string[];
    try {
      imports = importsOf(file);
    } catch {
      return; // not a source file (e.g. a JSON import)
    }
    for (const target of imports) visit(target, file);
  };
  for (const file of files) visit(file, file);
  return offending;
}

describe('server/sandbox independence', () => {
  it('imports nothing from server/gateway, not even through a shared module', () => {
    expect(gatewayImports(tsFiles(SANDBOX))).toEqual([]);
  });

  it('the wire fixtures and the sandbox fixture test import nothing from server/gateway either', () => {
    const files = [...tsFiles(join(root, 'test/fixtures/wire')), join(root, 'test/integration/sandbox/wire-fixtures.test.ts')];
    expect(gatewayImports(files)).toEqual([]);
  });

  it('the check sees an import of the gateway when there is one', () => {
    expect(gatewayImports([join(root, 'test/integration/gateway/wire-fixtures.test.ts')]).length).toBeGreaterThan(0);
  });
});
