// Import rules: the module table of docs/architecture.md ("Modules of packages/shared"), checked by
// `pnpm run deps:check` (part of `pnpm run lint`). e2e/test/import-rules.test.ts breaks each rule on
// purpose in a fixture and expects the check to fail.

// The modules of packages/shared/src from the bottom up: a module may import modules of lower
// layers only (and its own files). A module that lends SQL to the statements of another (a fragment
// or a statement it owns) does so from a leaf file named `*-sql.ts`, which anyone may import and
// which itself imports only the bottom two layers.
const LAYERS = [
  ['errors', 'ids', 'lru', 'timeout', 'process', 'tracing', 'log', 'metrics', 'http', 'config', 'mail'],
  ['db'],
  ['contracts', 'queue', 'catalog', 'upstream', 'audit'],
  ['billing', 'webhooks', 'media'],
  ['accounts'],
  ['tasks', 'images', 'payments'],
  ['cli', 'testing'],
];

const SHARED = '^packages/shared/src/';
const modules = (names) => `${SHARED}(${names.join('|')})(/|\\.ts$)`;
const SQL_LEAF = '-sql\\.ts$';
// Tests may import whatever they exercise (the testing module, other modules to set up rows).
const TESTS = '\\.test\\.ts$';

const layerRules = LAYERS.slice(0, -1).flatMap((layer, i) => {
  const above = LAYERS.slice(i + 1).flat();
  const rules = [
    {
      name: `layer-${layer[0]}`,
      comment: `${layer.join(', ')} may not import ${above.join(', ')} (lower layers only; *-sql.ts leaves excepted)`,
      severity: 'error',
      from: { path: modules(layer), pathNot: TESTS },
      to: { path: modules(above), pathNot: SQL_LEAF },
    },
  ];
  if (layer.length > 1 && i > 0) {
    rules.push({
      name: `layer-${layer[0]}-siblings`,
      comment: `${layer.join(', ')} are one layer: none imports another (*-sql.ts leaves excepted)`,
      severity: 'error',
      from: { path: `${SHARED}(${layer.join('|')})/`, pathNot: TESTS },
      to: { path: modules(layer), pathNot: [`${SHARED}$1/`, SQL_LEAF] },
    });
  }
  return rules;
});

/** @type {import('dependency-cruiser').IConfiguration} */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      comment: 'No import cycles anywhere.',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    ...layerRules,
    {
      name: 'sql-leaves-are-leaves',
      comment: 'A *-sql.ts leaf imports only the bottom two layers, nothing from the modules that borrow it.',
      severity: 'error',
      from: { path: `${SHARED}[^/]+/[^/]+${SQL_LEAF}` },
      to: { path: SHARED, pathNot: modules([...LAYERS[0], ...LAYERS[1]]) },
    },
    {
      name: 'apps-use-public-faces',
      comment:
        "Apps, e2e and bench import packages/shared through its package's subpaths (@mediagate/shared/tasks, ...), never its files.",
      severity: 'error',
      from: { path: '^(apps|e2e|bench)/' },
      to: { path: SHARED },
    },
    {
      name: 'no-root-barrel',
      comment: 'There is no root barrel: import the module (@mediagate/shared/tasks, ...).',
      severity: 'error',
      from: {},
      to: { path: '^packages/shared/(src|dist)/index\\.(ts|js|d\\.ts)$' },
    },
    {
      name: 'routes-import-no-route',
      comment:
        'A route file (routes/<area>.<action>.ts) imports no other route file; shared helpers live outside them.',
      severity: 'error',
      from: { path: '^apps/api/src/routes/[^/]+\\.[^/]+\\.ts$', pathNot: '\\.test\\.ts$' },
      to: { path: '^apps/api/src/routes/[^/]+\\.[^/]+\\.ts$', pathNot: '\\.test\\.ts$' },
    },
    {
      name: 'packages-import-no-app',
      comment: 'packages/shared knows nothing of the apps.',
      severity: 'error',
      from: { path: SHARED },
      to: { path: '^(apps|e2e|bench)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: ['(^|/)(node_modules|dist|\\.data|\\.turbo|coverage)/', '^e2e/test/fixtures/'] },
    tsPreCompilationDeps: true,
    combinedDependencies: false,
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
    },
    reporterOptions: { text: { highlightFocused: true } },
  },
};
