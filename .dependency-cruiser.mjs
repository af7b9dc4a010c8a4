/**
 * The import rules of server/ (docs/architecture.md, "Layers"). test/unit/layering.test.ts runs
 * them through dependency-cruiser's API, so `npm test` fails on a violation; from the shell:
 * `npx depcruise server --config .dependency-cruiser.mjs`.
 *
 * Layers, bottom to top: a module may import from its own layer and the layers below it, never
 * from a layer above.
 */

/** Bottom to top. Each entry is one layer: the paths (regular expressions) that belong to it. */
const LAYERS = [
  {
    name: 'base',
    comment: 'errors, logging, small utilities and the shared HTTP plumbing',
    paths: [
      '^server/(errors|logging|card-number|uuid-v7|objects|package-files|pug-views|read-body)\\.ts$',
      '^server/http/',
    ],
  },
  { name: 'gateway', comment: 'the wire: typed client, schemas, signing, money, codes', paths: ['^server/gateway/'] },
  { name: 'orders', comment: 'the domain: orders, state machine, reconcile engine, sweeper, outbox, stores', paths: ['^server/orders/'] },
  {
    name: 'features',
    comment: 'checkout routes, staff admin, sandbox gateway, observability, languages, store conformance suite',
    paths: ['^server/(checkout|admin|sandbox|observability|i18n|testing)/'],
  },
  { name: 'kit', comment: 'createCheckoutKit wires the features together', paths: ['^server/kit\\.ts$'] },
  { name: 'entry', comment: 'the package root: exports by name', paths: ['^server/index\\.ts$'] },
  { name: 'cli', comment: 'the command line, on top of everything', paths: ['^server/cli/'] },
];

const either = (paths) => paths.join('|');

/** One rule per layer: nothing in it imports from any layer above it. */
const layerRules = LAYERS.slice(0, -1).map((layer, index) => ({
  name: `layer-${layer.name}-imports-down`,
  severity: 'error',
  comment: `${layer.name} (${layer.comment}) imports only from its own layer and below`,
  from: { path: either(layer.paths) },
  to: { path: either(LAYERS.slice(index + 1).flatMap((above) => above.paths)) },
}));

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'no module reaches itself again through its imports (type-only imports included)',
      from: { path: '^server/' },
      to: { circular: true },
    },
    ...layerRules,
    {
      name: 'sandbox-not-gateway',
      severity: 'error',
      comment: 'the sandbox is a second, independent reading of the interface: it meets the client only over HTTP',
      from: { path: '^server/sandbox/' },
      to: { path: '^server/gateway/' },
    },
    {
      name: 'sandbox-not-gateway-indirectly',
      severity: 'error',
      comment: 'nor through a module outside the sandbox (everything of the sandbox is reached from its index.ts)',
      from: { path: '^server/sandbox/index\\.ts$' },
      to: { path: '^server/gateway/', reachable: true },
    },
    {
      name: 'server-not-tests-or-examples',
      severity: 'error',
      comment: 'the package never imports its tests, examples, benchmarks or scripts',
      from: { path: '^server/' },
      to: { path: '^(test|examples|bench|scripts)/' },
    },
    {
      name: 'index-only-from-outside',
      severity: 'error',
      comment: 'a folder\'s index.ts is its face to other folders and the package; its own modules import each other directly',
      from: { path: '^server/([^/]+)/' },
      to: { path: '^server/$1/index\\.ts$' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '\\.d\\.ts$' },
    // Type-only imports are arrows too: a circle of types is still a circle.
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default', 'types'], extensions: ['.ts', '.js'] },
  },
};
