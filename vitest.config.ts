import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';

const server = (path: string): string => fileURLToPath(new URL(`./server/${path}`, import.meta.url));

export default defineConfig({
  // Examples import the package by name, as a shop does; inside the repository the name is its source.
  resolve: {
    alias: [
      { find: /^acquiring-checkout-kit$/, replacement: server('index.ts') },
      { find: /^acquiring-checkout-kit\/(gateway|testing|sandbox)$/, replacement: server('$1/index.ts') },
    ],
  },
  test: {
    include: ['test/**/*.test.ts'],
    // Integration tests open real ports and databases; keep parallelism modest on small machines.
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
