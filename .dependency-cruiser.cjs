/**
 * The rooms of the repository and their layers, lowest first (README "Layout"):
 *   core/        pure rules and data every other room shares: domain logic, the route table, the
 *                contract (problems, schemas, gateway responses, table definition)
 *   lambdas/     what runs in Lambda: common/ < data/ < api/, pages/ and events/ (the event consumer)
 *   lib/         the CDK app: the stack, its constructs, the stages' settings, the template checks
 *   operations/  what an operator does (keys, links, partners, catalog, events …), on any target
 *   openapi/     the OpenAPI document and the code that writes it, and from it the client's generated
 *                types (clients/) and the contract run's Portman configuration (test/contract/)
 *   asyncapi/    the AsyncAPI document of the events to and from the platform and the code that writes it
 *   emulator/    AWS on one machine: API Gateway, Lambda, the event pipeline, IAM and Logs
 *   cli/         the operator CLI (`npm run admin`), locally or against a deployed stage
 *   verify/      the checks `npm run verify` and `npm run smoke` run against a deployed (or the local) stage
 *   bin/         entry points
 * A room imports only rooms on a lower layer (rooms on one layer know nothing of each other), and
 * nothing anywhere forms a cycle of imports that run (see no-circular). test/, bench/ and docs/ sit above everything and nothing imports
 * them. A generated document (openapi/partner-api.json, which the API serves) is data, not code:
 * any room may read it. `npm run check` runs this.
 */
const LAYERS = [
  ['core'],
  ['lambdas'],
  ['lib', 'operations'],
  ['openapi', 'asyncapi'],
  ['emulator'],
  ['cli', 'verify'],
  ['bin'],
];
const OUTSIDE = ['test', 'bench', 'docs', 'clients'];
const GENERATED_DOCUMENT = '^(openapi|asyncapi)/[^/]+\\.json$';
const alternation = (rooms) => `^(${rooms.join('|')})/`;
/** For each room, every room on its own layer or above is out of reach (the room itself aside). */
const layerRules = LAYERS.flatMap((layer, index) =>
  layer.map((room) => ({
    name: `${room}-imports-down`,
    severity: 'error',
    comment: `${room}/ imports only rooms on a lower layer (see the top of this file).`,
    from: { path: `^${room}/` },
    to: {
      path: alternation([
        ...LAYERS.slice(index)
          .flat()
          .filter((other) => other !== room),
        ...OUTSIDE,
      ]),
      pathNot: GENERATED_DOCUMENT,
    },
  })),
);
module.exports = {
  forbidden: [
    ...layerRules,
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'A cycle makes a room unloadable on its own. A cycle through a type-only import is erased before ' +
        'anything loads, so it is not one: the wizard’s steps use the message catalogues’ type, and the ' +
        'catalogues’ type names the steps’ text fields (docs/design/host-pages.md, "Steps follow the products").',
      from: {},
      to: { circular: true, viaOnly: { dependencyTypesNot: ['type-only'] } },
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
      from: { path: '^asyncapi/' },
      to: { path: '^(lambdas|lib/constructs)/' },
    },
    {
      name: 'openapi-from-core',
      severity: 'error',
      comment: 'The OpenAPI generator reads the route table, the schemas and the handlers’ own rules only.',
      from: { path: '^openapi/' },
      to: { path: '^lib/constructs/' },
    },
    {
      name: 'client-stands-alone',
      severity: 'error',
      comment: 'The published TypeScript client ships on its own.',
      from: { path: '^clients/typescript/' },
      to: { path: alternation(LAYERS.flat()) },
    },
    {
      name: 'csv-only-in-the-cli',
      severity: 'error',
      comment:
        'csv-parse and csv-stringify read and write the hosts files of `links create --file`: the CLI’s ' +
        '(and its tests’) alone, so that no Lambda bundle carries them.',
      from: { pathNot: '^(cli|test)/' },
      to: { path: '^node_modules/(csv-parse|csv-stringify)/' },
    },
    { name: 'not-to-unresolvable', severity: 'error', from: {}, to: { couldNotResolve: true } },
  ],
  options: {
    // npm packages stay in the graph as leaves, unfollowed, so that a rule can name one (csv-only-in-the-cli).
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(cdk.out|\\.local|test-artifacts)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.tsx', '.mjs', '.js', '.json', '.d.ts'],
    },
  },
};
