/**
 * The layers of the repository, lowest first (README "Layout"):
 *   core/      pure rules and data every other room shares: domain logic, the route table, the
 *              contract (problems, schemas, gateway responses, table definition); imports nothing above
 *   lambdas/   what runs in Lambda: common/ < data/ < api/, pages/ and events/ (the event consumer)
 *   lib/       the stack and its constructs, the operations, the operator CLI, the local emulator,
 *              the OpenAPI generator and the deploy verification
 *   bin/       entry points
 * Arrows point down only, and nothing anywhere forms a cycle. `npm run check` runs this.
 */
const ABOVE_CORE = '^(lambdas|lib|bin|test|bench|docs|clients)/';
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'A cycle makes a room unloadable on its own.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'core-stays-low',
      severity: 'error',
      comment: 'core/ imports nothing above it.',
      from: { path: '^core/' },
      to: { path: ABOVE_CORE },
    },
    {
      name: 'lambdas-below-lib',
      severity: 'error',
      comment: 'What runs in Lambda never reaches for the stack, the CLI, the emulator or tests.',
      from: { path: '^lambdas/' },
      to: { path: '^(lib|bin|test|bench|docs|clients)/' },
    },
    {
      name: 'lib-below-bin',
      severity: 'error',
      comment: 'lib/ never imports an entry point or a test.',
      from: { path: '^lib/' },
      to: { path: '^(bin|test|bench)/' },
    },
    {
      name: 'lambdas-common-lowest',
      severity: 'error',
      comment: 'lambdas/common is below data, api and pages.',
      from: { path: '^lambdas/common/' },
      to: { path: '^lambdas/(data|api|pages)/' },
    },
    {
      name: 'lambdas-data-below-handlers',
      severity: 'error',
      comment: 'Data modules never import a handler, a page or the event consumer.',
      from: { path: '^lambdas/data/' },
      to: { path: '^lambdas/(api|pages|events)/' },
    },
    {
      name: 'api-not-pages',
      severity: 'error',
      comment: 'The API and the pages are separate functions.',
      from: { path: '^lambdas/api/' },
      to: { path: '^lambdas/pages/' },
    },
    {
      name: 'pages-not-api',
      severity: 'error',
      comment: 'The API and the pages are separate functions.',
      from: { path: '^lambdas/pages/' },
      to: { path: '^lambdas/api/' },
    },
    {
      name: 'events-apart',
      comment: 'The event consumer is a function of its own: neither the API nor the pages, nor they it.',
      severity: 'error',
      from: { path: '^lambdas/events/' },
      to: { path: '^lambdas/(api|pages)/' },
    },
    {
      name: 'handlers-not-events',
      severity: 'error',
      comment: 'The API and the pages never import the event consumer.',
      from: { path: '^lambdas/(api|pages)/' },
      to: { path: '^lambdas/events/' },
    },
    {
      name: 'asyncapi-from-core',
      severity: 'error',
      comment: 'The AsyncAPI generator reads the event schemas and delivery settings only.',
      from: { path: '^lib/asyncapi/' },
      to: { path: '^(lambdas|lib/(cli|local|operations|verify|constructs|openapi))/' },
    },
    {
      name: 'operations-below-their-callers',
      severity: 'error',
      comment: 'Operations are called by the CLI, the emulator and the tests; they know none of them.',
      from: { path: '^lib/operations/' },
      to: { path: '^lib/(cli|local|verify|constructs|openapi)/|^lib/partner-api-stack' },
    },
    {
      name: 'emulator-below-cli',
      severity: 'error',
      comment: 'The local emulator never imports the CLI.',
      from: { path: '^lib/local/' },
      to: { path: '^lib/(cli|verify)/' },
    },
    {
      name: 'stack-knows-no-tools',
      severity: 'error',
      comment:
        'The CDK stack and its constructs never import the CLI, operations, the emulator or the verification.',
      from: { path: '^lib/(constructs/|partner-api-stack|stage-config|template-checks)' },
      to: { path: '^lib/(cli|operations|local|verify)/' },
    },
    {
      name: 'openapi-from-core',
      severity: 'error',
      comment: 'The OpenAPI generator reads the route table, the schemas and the handlers’ own rules only.',
      from: { path: '^lib/openapi/' },
      to: { path: '^lib/(cli|local|operations|verify|constructs)/' },
    },
    {
      name: 'client-stands-alone',
      severity: 'error',
      comment: 'The published TypeScript client ships on its own.',
      from: { path: '^clients/typescript/' },
      to: { path: '^(core|lambdas|lib|bin)/' },
    },
    { name: 'not-to-unresolvable', severity: 'error', from: {}, to: { couldNotResolve: true } },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(node_modules|cdk.out|\\.local|test-artifacts)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.mjs', '.js', '.json', '.d.ts'],
    },
  },
};
