/**
 * Copies the runtime files tsc does not emit (the stores' SQL schema files, the pages' translations) from `server/`
 * into `dist/server/`, keeping their relative paths, so compiled modules find them next to
 * themselves. Run by `npm run build` after tsc.
 */
import { copyFileSync, mkdirSync, readdirSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ASSET_EXTENSIONS = ['.sql', '.json'] as const;

/** Copies every asset under `fromDir` to the same relative place under `toDir`; returns the copied paths (relative). */
export function copyAssets(fromDir: string, toDir: string, extensions: readonly string[] = ASSET_EXTENSIONS): string[] {
  const copied: string[] = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const source = join(dir, entry.name);
      if (entry.isDirectory()) {
        walk(source);
      } else if (extensions.some((ext) => entry.name.endsWith(ext))) {
        const target = join(toDir, relative(fromDir, source));
        mkdirSync(dirname(target), { recursive: true });
        copyFileSync(source, target);
        copied.push(relative(fromDir, source));
      }
    }
  };
  walk(fromDir);
  return copied.sort();
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const root = join(dirname(fileURLToPath(import.meta.url)), '..');
  const copied = copyAssets(join(root, 'server'), join(root, 'dist', 'server'));
  process.stdout.write(`copied ${copied.length} asset file(s) into dist/server\n`);
}
