/**
 * The README is code too: every ```ts block (the quick start) and the client tour of
 * docs/client.md are compiled with tsc against the package's public exports (the package name is
 * mapped to server/), its first screen holds exactly the two commands, it stays short, and every
 * relative link and image it shows exists. The docs never import the kit's source by path.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { markedBlock, tsBlocks } from '../helpers/markdown.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
/** `// kit.ts` as a block's first line names its file, so later blocks can import it. */
const FILE_NAME_RE = /^\/\/ ([\w-]+(?:\/[\w-]+)*\.ts)\b/;


describe('README.md', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  it('opens with exactly the two commands, one line each', () => {
    const firstBlock = /^```sh\n([\s\S]*?)^```$/m.exec(README)?.[1] ?? '';
    const lines = firstBlock.trim().split('\n');
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatch(/^npm install && npm start +# \S/);
    expect(lines[1]).toMatch(/^npm test +# \S/);
    expect(README.indexOf(firstBlock)).toBeLessThan(README.indexOf('\n## '));
  });

  it('stays the front door: about 150 lines, the quick start between its markers', () => {
    expect(README.split('\n').length).toBeLessThanOrEqual(180);
    const quickStart = markedBlock(README, 'quickstart');
    expect(tsBlocks(quickStart).map((code) => FILE_NAME_RE.exec(code)?.[1])).toEqual(['kit.ts', 'server.ts']);
    // Each table lives once, in the docs.
    expect(README).not.toContain('| `gateway.baseUrl`');
    expect(README).not.toContain('<!-- bench:start -->');
    expect(README).not.toContain('<!-- reliability:start -->');
  });

  it('docs import the package by name, never its source by path', () => {
    const docs = join(ROOT, 'docs');
    for (const name of readdirSync(docs).filter((n) => n.endsWith('.md'))) {
      const text = readFileSync(join(docs, name), 'utf8');
      expect(text, name).not.toMatch(/from '(?:\.\.?\/)+server\//);
    }
  });

  it('links only to files and images that exist', () => {
    const targets = [...README.matchAll(/\]\(([^)#\s]+)(?:#[^)]*)?\)/g)].map((m) => m[1] ?? '').filter((t) => !/^[a-z]+:/.test(t));
    expect(targets.length).toBeGreaterThan(5);
    for (const target of targets) expect(existsSync(join(ROOT, target)), target).toBe(true);
  });

  it('every TypeScript sample compiles against the public exports', () => {
    const tour = readFileSync(join(ROOT, 'docs', 'client.md'), 'utf8').split('## A tour')[1] ?? '';
    const blocks = [...tsBlocks(README), tsBlocks(tour)[0] ?? ''];
    expect(blocks.length).toBeGreaterThanOrEqual(3);
    // Inside the repository, so the samples resolve express, pg… from its node_modules and are ESM.
    const dir = mkdtempSync(join(ROOT, '.readme-check-'));
    dirs.push(dir);
    const files = blocks.map((code, i) => {
      const name = FILE_NAME_RE.exec(code)?.[1] ?? `block-${String(i + 1)}.ts`;
      mkdirSync(dirname(join(dir, name)), { recursive: true });
      writeFileSync(join(dir, name), code);
      return name;
    });
    expect(new Set(files).size).toBe(files.length);
    const rootConfig = JSON.parse(readFileSync(join(ROOT, 'tsconfig.json'), 'utf8')) as { compilerOptions: Record<string, unknown> };
    const { outDir: _outDir, rootDir: _rootDir, declaration: _declaration, sourceMap: _sourceMap, ...compilerOptions } = rootConfig.compilerOptions;
    writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
      compilerOptions: {
        ...compilerOptions,
        noEmit: true,
        paths: {
          'acquiring-checkout-kit': [join(ROOT, 'server', 'index.ts')],
          'acquiring-checkout-kit/testing': [join(ROOT, 'server', 'testing', 'index.ts')],
          'acquiring-checkout-kit/sandbox': [join(ROOT, 'server', 'sandbox', 'index.ts')],
        },
      },
      files,
    }));
    const tsc = spawnSync(process.execPath, [join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', join(dir, 'tsconfig.json')], {
      cwd: ROOT,
      encoding: 'utf8',
      timeout: 240_000,
    });
    expect(`${tsc.stdout}${tsc.stderr}`.trim()).toBe('');
    expect(tsc.status).toBe(0);
  }, 300_000);
});
