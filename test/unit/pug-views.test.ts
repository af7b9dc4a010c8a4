/**
 * Views compiled in a worker: the same HTML as pug's own compileFile (extends, include, mixins,
 * escaping), each file compiled once per process, template errors reported with the file, and
 * the pug compiler never loaded into the process that renders.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pug from 'pug';
import { afterAll, describe, expect, it } from 'vitest';
import { compilePugViews } from '../../server/pug-views.js';

const dir = mkdtempSync(join(tmpdir(), 'pug-views-'));
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

writeFileSync(join(dir, 'layout.pug'), 'doctype html\nhtml\n  body\n    block content\n');
writeFileSync(join(dir, 'mixins.pug'), 'mixin field(name, value)\n  input(type="hidden" name=name value=value)\n');
writeFileSync(
  join(dir, 'page.pug'),
  'extends layout.pug\ninclude mixins.pug\nblock content\n  h1= title\n  each f in fields\n    +field(f.name, f.value)\n  p!= trusted\n',
);
writeFileSync(join(dir, 'other.pug'), 'p Hello #{who}\n');
writeFileSync(join(dir, 'broken.pug'), 'div(\n');

const locals = { title: '<Tea & "cups">', fields: [{ name: 'a"b', value: '<script>' }, { name: 'n', value: 'x&y' }], trusted: '<b>ok</b>' };

describe('compilePugViews', () => {
  it('renders exactly what pug.compileFile renders', () => {
    const views = compilePugViews(dir, ['page', 'other'] as const);
    const reference = pug.compileFile(join(dir, 'page.pug'), { basedir: dir });
    expect(views.page(locals)).toBe(reference(locals));
    expect(views.page(locals)).toContain('&lt;Tea &amp; &quot;cups&quot;&gt;');
    expect(views.other({ who: '<you>' })).toBe('<p>Hello &lt;you&gt;</p>');
  });

  it('compiles each file once per process', () => {
    const first = compilePugViews(dir, ['page'] as const);
    const second = compilePugViews(dir, ['other', 'page'] as const);
    expect(second.page).toBe(first.page);
  });

  it('reports a template error with the file it is in', () => {
    expect(() => compilePugViews(dir, ['broken'] as const)).toThrow(/broken\.pug/);
  });

  it('keeps the pug compiler out of the process that renders', () => {
    const script = `
      import { createRequire } from 'node:module';
      import { compilePugViews } from './server/pug-views.ts';
      import { CHECKOUT_VIEWS_DIR } from './server/checkout/render.ts';
      const html = compilePugViews(CHECKOUT_VIEWS_DIR, ['error']).error({ assetsBase: '/a', cspNonce: 'n', lang: 'en', t: (key) => key, heading: 'H', message: 'M' });
      const loaded = Object.keys(createRequire(import.meta.url).cache).filter((f) => /node_modules[\\\\/]pug[\\\\/]/.test(f));
      console.log(JSON.stringify({ rendered: html.includes('<h1>H</h1>'), loaded }));
    `;
    const run = spawnSync(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', script], { cwd: join(import.meta.dirname, '../..'), encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout.trim())).toEqual({ rendered: true, loaded: [] });
  });
});
