import {
  COUNTER_PARTITION,
  HOST_EMAIL_PARTITION,
  HOST_PARTITION,
  NONCE_PARTITION,
  PARTNER_PARTITION,
  PROPERTY_PARTITION,
  REVEAL_PARTITION,
} from './data/partitions';
import type { Scope } from './domain/scopes';

/**
 * The single route table. The local server, the CDK stack, the OpenAPI document and the tests
 * all read it, so a route cannot exist in one and be missing from another.
 */
export const API_BASE_PATH = '/partner-api/v1';

export interface QueryParameter {
  readonly name: string;
  readonly description: string;
  readonly minimum: number;
  readonly maximum: number;
  readonly default: number;
}

export interface PartnerApiRoute {
  readonly id: string;
  readonly method: 'GET';
  /** Path relative to {@link API_BASE_PATH}, with `{name}` path parameters. */
  readonly path: string;
  readonly scope: Scope;
  /** Handler module under `lambdas/`, exporting `handler`. */
  readonly entry: string;
  readonly summary: string;
  readonly queryParameters: readonly QueryParameter[];
}

export const LOOKBACK_DAYS: QueryParameter = {
  name: 'lookback_days',
  description: 'Reservation history window, in days, used to compute the signals.',
  minimum: 1,
  maximum: 365,
  default: 90,
};

export const partnerApiRoutes = [
  {
    id: 'usage',
    method: 'GET',
    path: '/usage',
    scope: 'metrics:read',
    entry: 'api/usage.ts',
    summary: 'Seat usage of the hosts the partner sponsors',
    queryParameters: [],
  },
  {
    id: 'properties',
    method: 'GET',
    path: '/properties',
    scope: 'revenue:read',
    entry: 'api/properties.ts',
    summary: 'Properties of the hosts the partner sponsors',
    queryParameters: [],
  },
  {
    id: 'pricingSignals',
    method: 'GET',
    path: '/properties/{propertyId}/pricing-signals',
    scope: 'revenue:read',
    entry: 'api/pricing-signals.ts',
    summary: 'Pricing signals and reservation statistics of one property',
    queryParameters: [LOOKBACK_DAYS],
  },
] as const satisfies readonly PartnerApiRoute[];

export type PartnerApiRouteId = (typeof partnerApiRoutes)[number]['id'];

/** Looks a route up by id; the table is static, so a miss is a programming error. */
export function partnerApiRoute(id: PartnerApiRouteId): PartnerApiRoute {
  const route = partnerApiRoutes.find((candidate) => candidate.id === id);
  if (!route) throw new Error(`No route ${id}`);
  return route;
}

/** Routes of the partner API that need no key: the API's own description. */
export interface PublicApiRoute {
  readonly id: string;
  readonly method: 'GET';
  readonly path: string;
  readonly entry: string;
  readonly summary: string;
}

export const publicApiRoutes = [
  {
    id: 'openapiDocument',
    method: 'GET',
    path: '/openapi.json',
    entry: 'api/openapi-document.ts',
    summary: 'This API described in OpenAPI 3.1',
  },
] as const satisfies readonly PublicApiRoute[];

/** Browser pages, served on the activation base URL without an API key. */
export interface PageRoute {
  readonly id: string;
  readonly methods: readonly ('GET' | 'POST')[];
  readonly path: string;
  readonly entry: string;
  /** Whether the page reads the service secret (signing and session keys): only these get access. */
  readonly usesServiceSecrets: boolean;
  /**
   * Partitions the page writes (IAM `dynamodb:LeadingKeys`); it reads everything. Empty for a
   * page that only reads.
   */
  readonly writesPartitions: readonly string[];
}

export const pageRoutes = [
  {
    id: 'reveal',
    methods: ['GET', 'POST'],
    path: '/reveal/{revealId}',
    entry: 'pages/reveal.tsx',
    usesServiceSecrets: false,
    writesPartitions: [REVEAL_PARTITION],
  },
  {
    id: 'activate',
    methods: ['GET'],
    path: '/partner/{slug}/activate',
    entry: 'pages/activate.tsx',
    usesServiceSecrets: true,
    writesPartitions: [],
  },
  {
    id: 'marketplace',
    methods: ['GET', 'POST'],
    path: '/partner/{slug}/marketplace',
    entry: 'pages/marketplace.tsx',
    usesServiceSecrets: true,
    writesPartitions: [
      PARTNER_PARTITION,
      HOST_PARTITION,
      HOST_EMAIL_PARTITION,
      NONCE_PARTITION,
      COUNTER_PARTITION,
    ],
  },
  {
    id: 'onboarding',
    methods: ['GET', 'POST'],
    path: '/partner/{slug}/onboarding',
    entry: 'pages/onboarding.tsx',
    usesServiceSecrets: true,
    writesPartitions: [PARTNER_PARTITION, PROPERTY_PARTITION],
  },
] as const satisfies readonly PageRoute[];

/** The REQUEST authorizer of the partner API: one function in front of every keyed route. */
export const AUTHORIZER = { id: 'authorizer', entry: 'api/authorizer.ts' } as const;

/** Name of a page route's function (alarms, logs, the local runtime). */
export const pageFunctionName = (routeId: string) => `${routeId}Page`;

/** A Lambda function of the service: its name in logs and alarms, and its module. */
export interface ServiceFunctionSpec {
  readonly name: string;
  /** Handler module under `lambdas/`, exporting `handler`. */
  readonly entry: string;
}

/** Every function the route table makes: the authorizer, one per API route, one per page route. */
export const serviceFunctions: readonly ServiceFunctionSpec[] = [
  { name: AUTHORIZER.id, entry: AUTHORIZER.entry },
  ...partnerApiRoutes.map((route) => ({ name: route.id, entry: route.entry })),
  ...publicApiRoutes.map((route) => ({ name: route.id, entry: route.entry })),
  ...pageRoutes.map((route) => ({ name: pageFunctionName(route.id), entry: route.entry })),
];

export type RouteMatch<R> =
  | { readonly kind: 'match'; readonly route: R; readonly pathParameters: Record<string, string> }
  | { readonly kind: 'method-not-allowed'; readonly allow: readonly string[]; readonly path: string }
  | { readonly kind: 'no-route' };

function matchTemplate(template: string, path: string): Record<string, string> | undefined {
  const templateParts = template.split('/');
  const pathParts = path.split('/');
  if (templateParts.length !== pathParts.length) return undefined;
  const parameters: Record<string, string> = {};
  for (const [index, part] of templateParts.entries()) {
    const actual = pathParts[index] ?? '';
    const parameter = /^\{(\w+)\}$/.exec(part)?.[1];
    if (parameter) {
      if (actual === '') return undefined;
      parameters[parameter] = decodeURIComponentSafe(actual);
    } else if (part !== actual) {
      return undefined;
    }
  }
  return parameters;
}

function decodeURIComponentSafe(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/** Matches a method and path against a table, as API Gateway matches resources then methods. */
export function matchRoute<R extends { readonly path: string }>(
  routes: readonly R[],
  methodsOf: (route: R) => readonly string[],
  method: string,
  path: string,
): RouteMatch<R> {
  const allow = new Set<string>();
  let template = '';
  for (const route of routes) {
    const pathParameters = matchTemplate(route.path, path);
    if (!pathParameters) continue;
    if (methodsOf(route).includes(method)) return { kind: 'match', route, pathParameters };
    for (const allowed of methodsOf(route)) allow.add(allowed);
    template = route.path;
  }
  return allow.size > 0
    ? { kind: 'method-not-allowed', allow: [...allow], path: template }
    : { kind: 'no-route' };
}
