/**
 * Rewrites a generated block of README.md between `<!-- NAME:start -->` and `<!-- NAME:end -->`,
 * so figures in the README come from the results files, never typed by hand. Leaves the README
 * alone when it has no such markers.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';

export function replaceReadmeBlock(name: string, content: string, readme = 'README.md'): boolean {
  if (!existsSync(readme)) return false;
  const text = readFileSync(readme, 'utf8');
  const startMarker = `<!-- ${name}:start -->`;
  const start = text.indexOf(startMarker);
  const end = text.indexOf(`<!-- ${name}:end -->`);
  if (start < 0 || end <= start) return false;
  writeFileSync(readme, `${text.slice(0, start)}${startMarker}\n${content.trimEnd()}\n${text.slice(end)}`);
  return true;
}
