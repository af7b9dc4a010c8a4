/**
 * Files the package ships at its root (`views/`, `public/`), found by walking up from this module,
 * so the same code works from `server/` (sources under tsx) and from `dist/server/` (compiled).
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/** Absolute path of `relative` under the package root; throws when the package lacks it. */
export function packageFile(relative: string): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5; i++) {
    const candidate = join(dir, relative);
    if (existsSync(candidate)) return candidate;
    dir = dirname(dir);
  }
  throw new Error(`checkout kit: cannot find ${relative} in the package (was it installed without its views/ and public/ folders?)`);
}
