/** packageFile: the package's shipped folders, found from the module wherever it runs from. */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageFile } from '../../server/package-files.js';

describe('packageFile', () => {
  it('finds the views and public folders at the package root', () => {
    const views = packageFile(join('views', 'checkout'));
    expect(existsSync(join(views, 'pay.pug'))).toBe(true);
    expect(packageFile(join('public', 'admin.css'))).toBe(join(packageFile('public'), 'admin.css'));
    expect(packageFile(join('views', 'sandbox'))).toBe(join(views, '..', 'sandbox'));
  });

  it('names the missing file', () => {
    expect(() => packageFile(join('views', 'no-such-folder'))).toThrow(/cannot find views.no-such-folder in the package/);
  });
});
