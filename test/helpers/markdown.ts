/** Code blocks of a markdown text, as the README and docs tests read them. */

/** The body of every ```ts block, in order. */
export function tsBlocks(markdown: string): string[] {
  return [...markdown.matchAll(/^```ts\n([\s\S]*?)^```$/gm)].map((m) => m[1] ?? '');
}

/** The text between `<!-- name:start -->` and `<!-- name:end -->`, or '' when absent. */
export function markedBlock(markdown: string, name: string): string {
  const start = markdown.indexOf(`<!-- ${name}:start -->`);
  const end = markdown.indexOf(`<!-- ${name}:end -->`);
  return start < 0 || end <= start ? '' : markdown.slice(start, end);
}
