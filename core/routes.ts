import type { responseSchemas } from './contract/api-schemas';
import type { ProblemName } from './contract/problems';
import { MAX_PMS_HOTEL_ID_LENGTH, PMS_HOTEL_ID_PATTERN } from './domain/properties';
import type { Scope } from './domain/scopes';
import type { ServiceQueueName } from './event-delivery';
import {
  ACTIVATION_LINK_PARTITION,
  API_KEY_PARTITION,
  AUDIT_PARTITION,
  CATALOG_INDEX_PARTITION,
  COUNTER_PARTITION,
  HOST_EMAIL_PARTITION,
  HOST_PARTITION,
  NONCE_PARTITION,
  OUTBOX_PARTITION,
  PARTNER_PARTITION,
  PARTNER_SLUG_PARTITION,
  PROPERTY_PARTITION,
  RATE_LIMIT_PARTITION,
  REVEAL_PARTITION,
  SIGNING_SECRET_PARTITION,
} from './partitions';
import type { ServiceSecretName } from './service-secrets';

/**
 * The single route table. The local server, the CDK stack, the OpenAPI document and the tests
 * all read it, so a route cannot exist in one and be missing from another.
 */
export const API_BASE_PATH = '/partner-api/v1';

/**
 * What a function may do in the table, action by action, as partition-key prefixes (the IAM
 * condition `dynamodb:LeadingKeys`): the stack grants exactly this, nothing more, and the IAM tests
 * check every call the functions make against the grant. A function without it has no table.
 */
export interface TableAccess {
  readonly getItem?: readonly string[];
  readonly query?: readonly string[];
  /** Query on the global index, by the index's partition-key prefix. */
  readonly queryIndex?: readonly string[];
  readonly updateItem?: readonly string[];
  readonly putItem?: readonly string[];
  readonly deleteItem?: readonly string[];
  /** ConditionCheck inside a transaction. */
  readonly conditionCheckItem?: readonly string[];
}

export type { ServiceSecretName } from './service-secrets';

/** What the function of a route (or the authorizer) may reach. */
export interface FunctionAccess {
  readonly table?: TableAccess;
  readonly secrets?: readonly ServiceSecretName[];
  /** Queues it may send messages to (`sqs:SendMessage`), with their URLs in its environment. */
  readonly sendsTo?: readonly ServiceQueueName[];
  /** Sends mail itself through SES (`ses:SendEmail`), from the stage's sender only (`MAIL_FROM`). */
  readonly sendsMail?: boolean;
}

/**
 * Every partner API route counts its request in the rate window of the key, and may read the
 * window first when its view says the window is probably full (docs/design/rate-limit.md).
 */
const COUNTS_REQUESTS = { updateItem: [RATE_LIMIT_PARTITION], getItem: [RATE_LIMIT_PARTITION] } as const;

/** An integer query parameter, checked against its range by the handler's wrapper. */
export interface IntegerQueryParameter {
  readonly kind: 'integer';
  readonly name: string;
  readonly description: string;
  readonly minimum: number;
  readonly maximum: number;
  /** The value when the parameter is absent; none: absent means "not asked for". */
  readonly default?: number;
  /** A typical value, for the OpenAPI document (generated clients and contract tools use it). */
  readonly example: number;
}

/** An opaque page cursor: a string the API issued (in a `Link` header), returned unchanged. */
export interface CursorQueryParameter {
  readonly kind: 'cursor';
  readonly name: string;
  readonly description: string;
  readonly maxLength: number;
  /** The parameter that must come with it (the page size). */
  readonly requires: string;
  // No example: a cursor is valid only for the account and the deployment that signed it, so any
  // example would be a 400 when a contract tool sends it (docs/design/openapi.md).
}

/** A text value looked up as given (an id from the partner's own system), checked against a pattern. */
interface TextQueryParameter {
  readonly kind: 'text';
  readonly name: string;
  readonly description: string;
  readonly maxLength: number;
  /** The whole value matches it (the document's `pattern`, the handler's check). */
  readonly pattern: string;
  /** What the value is, in the 400 that refuses one that does not match. */
  readonly expected: string;
  /** Parameters that cannot come with it: together they are a 400 that names both. */
  readonly excludes: readonly string[];
  /** An example that gives the documented 200 when a contract tool sends it. */
  readonly example: string;
}

export type QueryParameter = IntegerQueryParameter | CursorQueryParameter | TextQueryParameter;

/** A `{name}` segment of a route's path: a positive integer id. */
export interface PathParameter {
  readonly name: string;
  /** What the id is and where a client gets one (the document, and the 400 that refuses a bad one). */
  readonly description: string;
  readonly example: number;
  /** The problem when no such item is the partner's, and how the document describes that 404. */
  readonly notFound: { readonly problem: ProblemName; readonly description: string };
}

export interface PartnerApiRoute {
  readonly id: string;
  readonly method: 'GET';
  /** Path relative to {@link API_BASE_PATH}, with `{name}` path parameters. */
  readonly path: string;
  readonly pathParameters: readonly PathParameter[];
  readonly scope: Scope;
  /** Handler module under `lambdas/`, exporting `handler`. */
  readonly entry: string;
  readonly summary: string;
  readonly queryParameters: readonly QueryParameter[];
  /** The 200 body: a response schema of `contract/api-schemas.ts`, by its name. */
  readonly responseSchema: ResponseSchemaName;
  /**
   * A list that can grow large: the document describes its gzip-compressed answer and the
   * `response-too-large` problem of a list that no response can carry. (The encoding itself
   * applies to every route, `jsonResponse`; the other bodies stay far below its thresholds.)
   */
  readonly compressible: boolean;
  readonly access: FunctionAccess;
}

export type ResponseSchemaName = keyof typeof responseSchemas;

export const PROPERTY_ID = {
  name: 'propertyId',
  description: 'A property id from GET /properties.',
  example: 1,
  notFound: {
    problem: 'property-not-found',
    description: 'The property does not exist or is not sponsored by your account (not distinguished).',
  },
} as const satisfies PathParameter;

const LOOKBACK_DAYS = {
  kind: 'integer',
  name: 'lookback_days',
  description: 'Reservation history window, in days, used to compute the signals.',
  minimum: 1,
  maximum: 365,
  default: 90,
  example: 30,
} as const satisfies IntegerQueryParameter;

/**
 * Page size of the property list. Absent, the whole list comes in one response (as in v1 from the
 * start); present, one page in id order, with a `Link: <…>; rel="next"` header until the last.
 */
export const PAGE_LIMIT = {
  kind: 'integer',
  name: 'limit',
  description:
    'Page size: at most this many properties, in ascending id order, with a Link header (rel="next") to the next page until the last one. Without it, the whole list comes in one response.',
  minimum: 1,
  maximum: 1_000,
  example: 100,
} as const satisfies IntegerQueryParameter;

export const PAGE_CURSOR = {
  kind: 'cursor',
  name: 'cursor',
  description:
    'Where the next page starts: copy it from the Link header of the previous page (rel="next"), never build it. Opaque, bound to your account; it stays valid, and a property added meanwhile with a higher id is on a later page.',
  maxLength: 100,
  requires: PAGE_LIMIT.name,
} as const satisfies CursorQueryParameter;

/**
 * The partner's own id of a property: `GET /properties` answers that property alone, or none. One
 * property at most, so no next page: a cursor with it is a 400 (lists-and-caching.md).
 */
const PMS_HOTEL_ID = {
  kind: 'text',
  name: 'pms_hotel_id',
  description:
    'Your own id of a property (the pms_hotel_id of its activation link): the list holds that property alone, or is empty when none of the hosts you sponsor has it. The property entries are as without it; limit may come with it (one page, no Link header), cursor may not.',
  maxLength: MAX_PMS_HOTEL_ID_LENGTH,
  pattern: PMS_HOTEL_ID_PATTERN,
  expected: `1 to ${MAX_PMS_HOTEL_ID_LENGTH} printable characters without spaces, your own id of the property as in its activation link`,
  excludes: [PAGE_CURSOR.name],
  example: 'PMS-1002',
} as const satisfies TextQueryParameter;

export const partnerApiRoutes = [
  {
    id: 'usage',
    method: 'GET',
    path: '/usage',
    pathParameters: [],
    scope: 'metrics:read',
    entry: 'api/usage.ts',
    summary: 'Seat usage of the hosts the partner sponsors',
    queryParameters: [],
    responseSchema: 'UsageReport',
    compressible: false,
    access: { table: { ...COUNTS_REQUESTS, query: [PARTNER_PARTITION] } },
  },
  {
    id: 'properties',
    method: 'GET',
    path: '/properties',
    pathParameters: [],
    scope: 'revenue:read',
    entry: 'api/properties.ts',
    summary: 'Properties of the hosts the partner sponsors',
    queryParameters: [PAGE_LIMIT, PAGE_CURSOR, PMS_HOTEL_ID],
    responseSchema: 'PropertyList',
    compressible: true,
    // The cursor secret signs and checks page cursors; nothing else reads it. A lookup by
    // pms_hotel_id gets the partner's PMS claim and then its property item.
    access: {
      table: {
        ...COUNTS_REQUESTS,
        query: [PARTNER_PARTITION],
        getItem: [...COUNTS_REQUESTS.getItem, PARTNER_PARTITION],
      },
      secrets: ['cursor'],
    },
  },
  {
    id: 'pricingSignals',
    method: 'GET',
    path: '/properties/{propertyId}/pricing-signals',
    pathParameters: [PROPERTY_ID],
    scope: 'revenue:read',
    entry: 'api/pricing-signals.ts',
    summary: 'Pricing signals and reservation statistics of one property',
    queryParameters: [LOOKBACK_DAYS],
    responseSchema: 'PricingSignals',
    compressible: false,
    access: {
      table: {
        ...COUNTS_REQUESTS,
        getItem: [...COUNTS_REQUESTS.getItem, PARTNER_PARTITION],
        query: [PROPERTY_PARTITION],
        queryIndex: [PROPERTY_PARTITION],
      },
    },
  },
] as const satisfies readonly PartnerApiRoute[];

export type PartnerApiRouteId = (typeof partnerApiRoutes)[number]['id'];

/** The table's entry of one route, with its literal parameter names and response schema. */
export type PartnerApiRouteOf<Id extends PartnerApiRouteId> = Extract<
  (typeof partnerApiRoutes)[number],
  { readonly id: Id }
>;

/** A route's path parameters as its handler receives them: checked positive integers. */
export type PathValues<Route extends PartnerApiRoute> = {
  readonly [Parameter in Route['pathParameters'][number] as Parameter['name']]: number;
};

type QueryValue<Parameter extends QueryParameter> = Parameter extends
  | CursorQueryParameter
  | TextQueryParameter
  ? string | undefined
  : Parameter extends { readonly default: number }
    ? number
    : number | undefined;

/**
 * A route's query parameters as its handler receives them: integers checked against their bounds
 * (with the default filled in where the table has one), cursors and texts as sent, absent ones undefined.
 */
export type QueryValues<Route extends PartnerApiRoute> = {
  readonly [Parameter in Route['queryParameters'][number] as Parameter['name']]: QueryValue<Parameter>;
};

/** Looks a route up by id; the table is static, so a miss is a programming error. */
export function partnerApiRoute<Id extends PartnerApiRouteId>(id: Id): PartnerApiRouteOf<Id> {
  const route = partnerApiRoutes.find((candidate): candidate is PartnerApiRouteOf<Id> => candidate.id === id);
  if (!route) throw new Error(`No route ${id}`);
  return route;
}

/**
 * The methods an API route answers: HEAD wherever GET works (RFC 9110), with the same function,
 * authorizer, status and headers, and no body. A HEAD counts against the key's rate limit.
 */
export function answeredMethods(route: { readonly method: 'GET' }): readonly ('GET' | 'HEAD')[] {
  return [route.method, 'HEAD'];
}

/** Routes of the partner API that need no key: the API's own description. */
export interface PublicApiRoute {
  readonly id: string;
  readonly method: 'GET';
  readonly path: string;
  readonly entry: string;
  readonly summary: string;
  readonly access: FunctionAccess;
}

export const publicApiRoutes = [
  {
    id: 'openapiDocument',
    method: 'GET',
    path: '/openapi.json',
    entry: 'api/openapi-document.ts',
    summary: 'This API described in OpenAPI 3.1',
    access: {},
  },
] as const satisfies readonly PublicApiRoute[];

/** Browser pages, served on the activation base URL without an API key. */
export interface PageRoute {
  readonly id: string;
  readonly methods: readonly ('GET' | 'POST')[];
  readonly path: string;
  readonly entry: string;
  readonly access: FunctionAccess;
}

/**
 * Where GitHub's secret scanning partner program posts reports of leaked keys, on the pages' API
 * (no partner key: GitHub's signature authenticates the report; core/contract/secret-scanning.ts).
 */
export const SECRET_SCANNING_PATH = '/secret-scanning/github';

/** What every activation page reads: the partner its address names, by slug. */
const FINDS_PARTNER = [PARTNER_SLUG_PARTITION, PARTNER_PARTITION] as const;

export const pageRoutes = [
  {
    id: 'home',
    methods: ['GET'],
    path: '/',
    entry: 'pages/home.tsx',
    // A static page: what this host is, and where the API reference lives. Reaches nothing.
    access: {},
  },
  {
    id: 'reveal',
    methods: ['GET', 'POST'],
    path: '/reveal/{revealId}',
    entry: 'pages/reveal.tsx',
    // Spends a reveal in one transaction: the reveal, its key and the keys it retires, a check that
    // the partner is not suspended, and the audit event (which may only be added, never changed).
    access: {
      table: {
        getItem: [REVEAL_PARTITION, API_KEY_PARTITION, PARTNER_PARTITION],
        updateItem: [REVEAL_PARTITION, API_KEY_PARTITION],
        putItem: [AUDIT_PARTITION],
        conditionCheckItem: [PARTNER_PARTITION],
      },
    },
  },
  {
    id: 'activate',
    methods: ['GET', 'POST'],
    path: '/partner/{slug}/activate',
    entry: 'pages/activate.tsx',
    // Verifies links (the partner's sealed signing secret, the issued-link record, the used nonce)
    // and starts a session, or asks before it replaces one in progress or finished (the property's
    // knowledge base says which; the host's POST replaces it); writes nothing.
    access: {
      table: {
        getItem: [
          ...FINDS_PARTNER,
          SIGNING_SECRET_PARTITION,
          ACTIVATION_LINK_PARTITION,
          NONCE_PARTITION,
          PROPERTY_PARTITION,
        ],
      },
      secrets: ['sealing', 'session'],
    },
  },
  {
    id: 'marketplace',
    methods: ['GET', 'POST'],
    path: '/partner/{slug}/marketplace',
    entry: 'pages/marketplace.tsx',
    // Provisions a host in one transaction: account and e-mail claim (or the existing account's
    // partners and properties), sponsorship, property with its own item and PMS claim, seats, the
    // used nonce, its audit event and its `HostProvisioned` in the outbox; ids from counters.
    access: {
      table: {
        getItem: [...FINDS_PARTNER, NONCE_PARTITION, HOST_EMAIL_PARTITION],
        query: [PARTNER_PARTITION],
        queryIndex: [CATALOG_INDEX_PARTITION],
        updateItem: [PARTNER_PARTITION, COUNTER_PARTITION, HOST_PARTITION],
        putItem: [
          PARTNER_PARTITION,
          PROPERTY_PARTITION,
          HOST_PARTITION,
          HOST_EMAIL_PARTITION,
          NONCE_PARTITION,
          AUDIT_PARTITION,
          OUTBOX_PARTITION,
        ],
        conditionCheckItem: [PARTNER_PARTITION, HOST_EMAIL_PARTITION],
      },
      secrets: ['session'],
    },
  },
  {
    id: 'onboarding',
    methods: ['GET', 'POST'],
    path: '/partner/{slug}/onboarding',
    entry: 'pages/onboarding.tsx',
    // The wizard: the property's name (the partner's item) and its knowledge base, each save on
    // condition that the partner still sponsors the property; each submission's
    // `KnowledgeBaseSubmitted` in the outbox (and, for the closing page, whether it was sent), and
    // the audit event of the first.
    access: {
      table: {
        getItem: [...FINDS_PARTNER, PROPERTY_PARTITION, OUTBOX_PARTITION],
        query: [PARTNER_PARTITION],
        queryIndex: [CATALOG_INDEX_PARTITION],
        updateItem: [PARTNER_PARTITION, PROPERTY_PARTITION],
        putItem: [AUDIT_PARTITION, OUTBOX_PARTITION],
        conditionCheckItem: [PARTNER_PARTITION],
      },
      secrets: ['session'],
    },
  },
  {
    id: 'secretScanning',
    methods: ['POST'],
    path: SECRET_SCANNING_PATH,
    entry: 'pages/github-secret-scanning.ts',
    // Reports of leaked keys, signed by GitHub (docs/design/api-keys.md#when-a-key-leaks): reads the
    // reported key and its partner (its contact, its other keys), revokes a live one with its audit
    // event in one transaction, and mails the partner's contact. Nothing else.
    access: {
      table: {
        getItem: [API_KEY_PARTITION, PARTNER_PARTITION],
        updateItem: [API_KEY_PARTITION],
        putItem: [AUDIT_PARTITION],
      },
      sendsMail: true,
    },
  },
] as const satisfies readonly PageRoute[];

/**
 * The REQUEST authorizer of the partner API: one function in front of every keyed route. It reads
 * key records (their stored state decides) and their partner's standing (suspension, agreement):
 * items with no TTL.
 */
export const AUTHORIZER = {
  id: 'authorizer',
  entry: 'api/authorizer.ts',
  access: { table: { getItem: [API_KEY_PARTITION, PARTNER_PARTITION] } } satisfies FunctionAccess,
} as const;

/**
 * The consumer of the platform's events (docs/design/events.md): SQS delivers them in batches; it
 * applies each in one transaction guarded by its entity's version, and sends an event that can
 * never apply to the dead-letter queue, with its reason. It reads and changes what the events are
 * about: seats, sponsorships and properties (the partner's items), the property's own partition,
 * the host's account, its e-mail claim and the links issued for it, and records audit events. An
 * erasure also takes the host's events in the outbox down to their ids, and puts `HostErased` there.
 */
export const EVENT_CONSUMER = {
  id: 'platformEvents',
  entry: 'events/consumer.ts',
  access: {
    table: {
      getItem: [PROPERTY_PARTITION, PARTNER_PARTITION, HOST_PARTITION],
      query: [PARTNER_PARTITION, PROPERTY_PARTITION, HOST_EMAIL_PARTITION, OUTBOX_PARTITION],
      putItem: [PARTNER_PARTITION, PROPERTY_PARTITION, NONCE_PARTITION, AUDIT_PARTITION, OUTBOX_PARTITION],
      updateItem: [
        PARTNER_PARTITION,
        PROPERTY_PARTITION,
        HOST_PARTITION,
        HOST_EMAIL_PARTITION,
        ACTIVATION_LINK_PARTITION,
        OUTBOX_PARTITION,
      ],
      deleteItem: [PARTNER_PARTITION, PROPERTY_PARTITION, HOST_EMAIL_PARTITION],
      conditionCheckItem: [PROPERTY_PARTITION],
    },
    sendsTo: ['platformEventsDeadLetter'],
  } satisfies FunctionAccess,
} as const;

/**
 * The enrichment of the EventBridge Pipe that delivers the outbox (docs/design/events.md#delivery-to-the-platform):
 * given the keys of the outbox items the table's stream names, it reads each (marking when it was
 * taken for delivery) and gives the pipe what to send. It reads nothing else, and writes only that
 * mark: an UpdateItem that returns the item is its one read.
 */
export const OUTBOUND_ENRICHMENT = {
  id: 'outboundEvents',
  entry: 'events/outbound-enrichment.ts',
  access: { table: { updateItem: [OUTBOX_PARTITION] } } satisfies FunctionAccess,
} as const;

/** Name of a page route's function (alarms, logs, the local runtime). */
export const pageFunctionName = (routeId: string) => `${routeId}Page`;

/**
 * The functions that name how partners reach us (`CONTACT_EMAIL`, the stage's mail sender, as the
 * stack and the local runtime give it): the reveal page's refusals and the OpenAPI document's
 * contact, which its reference page shows.
 */
export const SUPPORT_ADDRESS_FUNCTIONS: readonly string[] = [pageFunctionName('reveal'), 'openapiDocument'];

/**
 * The functions that name the partner API's base URL as partners reach it (`API_BASE_URL`: the
 * custom domain's, or the `execute-api` one; only the stack knows it): the pages' home page, which
 * links the reference, and the OpenAPI document, whose `servers` it becomes.
 */
export const API_BASE_URL_FUNCTIONS: readonly string[] = [pageFunctionName('home'), 'openapiDocument'];

/** A Lambda function of the service: its name in logs and alarms, its module and what it may reach. */
export interface ServiceFunctionSpec {
  readonly name: string;
  /** Handler module under `lambdas/`, exporting `handler`. */
  readonly entry: string;
  readonly access: FunctionAccess;
}

/**
 * Every function of the service: the authorizer, one per API route, one per page route, the
 * consumer of the platform's events and the enrichment that delivers this service's own.
 */
export const serviceFunctions: readonly ServiceFunctionSpec[] = [
  { name: AUTHORIZER.id, entry: AUTHORIZER.entry, access: AUTHORIZER.access },
  { name: EVENT_CONSUMER.id, entry: EVENT_CONSUMER.entry, access: EVENT_CONSUMER.access },
  { name: OUTBOUND_ENRICHMENT.id, entry: OUTBOUND_ENRICHMENT.entry, access: OUTBOUND_ENRICHMENT.access },
  ...[...partnerApiRoutes, ...publicApiRoutes].map((route) => ({
    name: route.id,
    entry: route.entry,
    access: route.access,
  })),
  ...pageRoutes.map((route) => ({
    name: pageFunctionName(route.id),
    entry: route.entry,
    access: route.access,
  })),
];
