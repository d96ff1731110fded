import type { ProblemName } from '../core/contract/problems';
import { problemTypeUri } from '../core/contract/problems';
import { BASE_SCOPES } from '../core/domain/scopes';
import type { PartnerApiRoute } from '../core/routes';
import { partnerApiRoutes } from '../core/routes';

/**
 * The Portman configuration of the third-party contract run (test/contract/README.md), written by
 * `npm run openapi` to test/contract/portman-config.json from the route table and the document:
 * which operations each variation applies to, the edges of every integer query parameter, a 404
 * per path parameter and the path variables the test supplies. A route added to the table gets
 * its contract tests and variations with no hand edit; `npm run check` fails until the file is
 * regenerated.
 */

type Json = Record<string, unknown>;

const ENABLED = { enabled: true } as const;
/** What every answer with a body is checked for: status, media type, JSON, schema, required headers. */
const CONTRACT_TESTS = {
  statusCode: ENABLED,
  contentType: ENABLED,
  jsonBody: ENABLED,
  schemaValidation: ENABLED,
  headersPresent: ENABLED,
} as const;
/** A HEAD answer has no body (RFC 9110): its status and required headers. */
const HEAD_CONTRACT_TESTS = { statusCode: ENABLED, headersPresent: ENABLED } as const;

/**
 * What the document says of every answer, checked after each request: X-Request-Id is the same
 * value as x-amzn-RequestId; in a problem body, status is the HTTP status code and request_id the
 * x-amzn-RequestId header.
 */
// biome-ignore-start lint/suspicious/noTemplateCurlyInString: Postman's script, run by Newman: its template strings are its own
const COLLECTION_TEST_SCRIPT = [
  '// What the document says of every answer, checked after each request: X-Request-Id is the same value as',
  '// x-amzn-RequestId; in a problem body, status is the HTTP status code and request_id the x-amzn-RequestId header.',
  '(() => {',
  '  const name = `[${pm.request.method}] ${pm.info.requestName}`;',
  "  const requestId = pm.response.headers.get('x-amzn-RequestId');",
  "  if (pm.response.headers.has('X-Request-Id'))",
  '    pm.test(`${name} - X-Request-Id equals x-amzn-RequestId`, () => {',
  "      pm.expect(pm.response.headers.get('X-Request-Id')).to.equal(requestId);",
  '    });',
  "  if (!String(pm.response.headers.get('Content-Type')).startsWith('application/problem+json')) return;",
  '  let problem;',
  '  try {',
  '    problem = pm.response.json();',
  '  } catch {',
  "    return; // the generated 'Response has JSON Body' test reports it",
  '  }',
  '  if (problem.status !== undefined)',
  '    pm.test(`${name} - problem status is the HTTP status code`, () => {',
  '      pm.expect(problem.status).to.equal(pm.response.code);',
  '    });',
  '  if (problem.request_id !== undefined)',
  '    pm.test(`${name} - problem request_id equals x-amzn-RequestId`, () => {',
  '      pm.expect(problem.request_id).to.equal(requestId);',
  '    });',
  '})();',
];
// biome-ignore-end lint/suspicious/noTemplateCurlyInString: end of Postman's script

/** `lookback_days` → `LookbackDays`, `propertyId` → `PropertyId`: the part of a variation's name. */
const pascal = (name: string) =>
  name
    .split('_')
    .map((part) => part.charAt(0).toUpperCase() + part.slice(1))
    .join('');

/** A variation: its overwrites, the contract tests of its answer and, for a problem, its `type`. */
function variation(
  name: string,
  overwrites: Json,
  options: { readonly problem?: ProblemName; readonly head?: boolean } = {},
): Json {
  return {
    name,
    overwrites: [overwrites],
    tests: {
      contractTests: [options.head ? HEAD_CONTRACT_TESTS : CONTRACT_TESTS],
      ...(options.problem
        ? { contentTests: [{ responseBodyTests: [{ key: 'type', value: problemTypeUri(options.problem) }] }] }
        : {}),
    },
  };
}

const queryValue = (key: string, value: number) => ({
  overwriteRequestQueryParams: [{ key, value: String(value) }],
});

const noKey = { overwriteRequestSecurity: { remove: true } };
const malformedKey = { overwriteRequestSecurity: { bearer: { token: 'not-a-partner-api-key' } } };

/** The document's operation of a route's method (the document names operations; the table does not). */
function operation(document: Json, route: PartnerApiRoute, method: 'get' | 'head'): Json {
  const paths = document.paths as Record<string, Record<string, Json> | undefined>;
  const found = paths[route.path]?.[method];
  if (!found || typeof found.operationId !== 'string')
    throw new Error(`The document has no ${method.toUpperCase()} ${route.path} with an operationId`);
  return found;
}

/** A path parameter's largest valid value in the document: an id no test partner can hold. */
function largestValue(document: Json, route: PartnerApiRoute, name: string): number {
  const components = (document.components ?? {}) as { parameters?: Record<string, Json> };
  const parameters = (operation(document, route, 'get').parameters ?? []) as Json[];
  const resolved = parameters.map((parameter) =>
    typeof parameter.$ref === 'string'
      ? (components.parameters?.[parameter.$ref.replace('#/components/parameters/', '')] ?? {})
      : parameter,
  );
  const maximum = (
    resolved.find((parameter) => parameter.in === 'path' && parameter.name === name)?.schema as
      | { maximum?: unknown }
      | undefined
  )?.maximum;
  if (typeof maximum !== 'number')
    throw new Error(`No maximum for the path parameter ${name} of ${route.id}`);
  return maximum;
}

/** The routes as the configuration names them: their operations' ids, and which have which parameters. */
function routeFacts(document: Json) {
  const routes: readonly PartnerApiRoute[] = partnerApiRoutes;
  const getId = (route: PartnerApiRoute) => operation(document, route, 'get').operationId as string;
  const headId = (route: PartnerApiRoute) => operation(document, route, 'head').operationId as string;
  const integerParameters = (route: PartnerApiRoute) =>
    route.queryParameters.flatMap((parameter) => (parameter.kind === 'integer' ? [parameter] : []));
  return {
    routes,
    getId,
    headId,
    gets: routes.map(getId),
    integerParameters,
    withIntegers: routes.filter((route) => integerParameters(route).length > 0),
    withPathParameters: routes.filter((route) => route.pathParameters.length > 0),
  };
}
type RouteFacts = ReturnType<typeof routeFacts>;

const unknownVariable = (name: string) => `unknown${pascal(name)}`;

/** The key in the enterprise header: a 200 on every route. */
function enterpriseKeyHeader({ gets }: RouteFacts): Json {
  return {
    openApiOperationIds: gets,
    openApiResponse: '200',
    variations: [
      variation('EnterpriseKeyHeader', {
        overwriteRequestSecurity: {
          apiKey: { key: 'X-Enterprise-Key', value: '{{bearerToken}}', in: 'header' },
        },
      }),
    ],
  };
}

/** Each integer query parameter at its minimum and maximum: a 200. */
function integerBounds({ withIntegers, getId, integerParameters }: RouteFacts): Json[] {
  return withIntegers.map((route) => ({
    openApiOperationIds: [getId(route)],
    openApiResponse: '200',
    variations: integerParameters(route).flatMap(({ name, minimum, maximum }) => [
      variation(`${pascal(name)}Minimum`, queryValue(name, minimum)),
      variation(`${pascal(name)}Maximum`, queryValue(name, maximum)),
    ]),
  }));
}

/** No key and a malformed key, on GET and HEAD: a 401. */
function keyRefusals({ gets, routes, headId }: RouteFacts): Json[] {
  return [
    {
      openApiOperationIds: gets,
      openApiResponse: '401',
      variations: [
        variation('NoKey', noKey, { problem: 'missing-api-key' }),
        variation('MalformedKey', malformedKey, { problem: 'malformed-api-key' }),
      ],
    },
    {
      openApiOperationIds: routes.map(headId),
      openApiResponse: '401',
      variations: [
        variation('NoKeyHead', noKey, { head: true }),
        variation('MalformedKeyHead', malformedKey, { head: true }),
      ],
    },
  ];
}

/** The test's second partner holds the base scopes only: every other scope's routes answer 403. */
function scopeRefusal({ routes, getId }: RouteFacts): Json {
  return {
    openApiOperationIds: routes.filter((route) => !BASE_SCOPES.includes(route.scope)).map(getId),
    openApiResponse: '403',
    variations: [
      variation(
        'MetricsOnlyKey',
        { overwriteRequestSecurity: { bearer: { token: '{{metricsOnlyKey}}' } } },
        { problem: 'insufficient-scope' },
      ),
    ],
  };
}

/** An id no partner holds, in each path parameter: the parameter's not-found problem. */
function unknownIds({ withPathParameters, getId }: RouteFacts): Json[] {
  return withPathParameters.map((route) => ({
    openApiOperationIds: [getId(route)],
    openApiResponse: '404',
    variations: route.pathParameters.map(({ name, notFound }) =>
      variation(
        `Unknown${pascal(name)}`,
        { overwriteRequestPathVariables: [{ key: name, value: `{{${unknownVariable(name)}}}` }] },
        { problem: notFound.problem },
      ),
    ),
  }));
}

/** Each integer query parameter one step outside its range: a 400. */
function outOfRange({ withIntegers, getId, integerParameters }: RouteFacts): Json[] {
  return withIntegers.map((route) => ({
    openApiOperationIds: [getId(route)],
    openApiResponse: '400',
    variations: integerParameters(route).flatMap(({ name, minimum, maximum }) => [
      variation(`${pascal(name)}BelowMinimum`, queryValue(name, minimum - 1), { problem: 'invalid-request' }),
      variation(`${pascal(name)}AboveMaximum`, queryValue(name, maximum + 1), { problem: 'invalid-request' }),
    ]),
  }));
}

/** An `Accept` without JSON: a 406. */
function notAcceptable({ gets }: RouteFacts): Json {
  return {
    openApiOperationIds: gets,
    openApiResponse: '406',
    variations: [
      variation(
        'AcceptExcludesJson',
        { overwriteRequestHeaders: [{ key: 'Accept', value: 'text/html' }] },
        { problem: 'not-acceptable' },
      ),
    ],
  };
}

/** The test partner's own ids in every path (openapi-to-postman would invent one: a 404). */
function ownIdsInPaths({ routes, withPathParameters, getId, headId }: RouteFacts): Json[] {
  const names = [...new Set(routes.flatMap((route) => route.pathParameters.map(({ name }) => name)))];
  return names.map((name) => {
    const using = withPathParameters.filter((route) => route.pathParameters.some((p) => p.name === name));
    return {
      overwriteRequestPathVariables: [{ key: name, value: `{{${name}}}` }],
      openApiOperationIds: using.flatMap((route) => [getId(route), headId(route)]),
    };
  });
}

/** The configuration for the document generated from the route table. */
export function portmanConfig(document: Json): Json {
  const facts = routeFacts(document);
  const variationTests: Json[] = [
    enterpriseKeyHeader(facts),
    ...integerBounds(facts),
    ...keyRefusals(facts),
    scopeRefusal(facts),
    ...unknownIds(facts),
    ...outOfRange(facts),
    notAcceptable(facts),
  ];

  return {
    version: 1.0,
    tests: {
      contractTests: [{ openApiOperation: '*::/*', openApiResponse: '200', ...CONTRACT_TESTS }],
      contentTests: [],
      extendTests: [],
      variationTests,
    },
    assignVariables: [],
    overwrites: ownIdsInPaths(facts),
    globals: {
      securityOverwrites: { remove: true },
      collectionVariables: Object.fromEntries(
        facts.withPathParameters.flatMap((route) =>
          route.pathParameters.map(({ name }) => [
            unknownVariable(name),
            String(largestValue(document, route, name)),
          ]),
        ),
      ),
      collectionPreRequestScripts: [],
      collectionTestScripts: COLLECTION_TEST_SCRIPT,
      keyValueReplacements: {},
      valueReplacements: {},
      rawReplacements: [],
    },
  };
}
