import type { Client } from 'openapi-fetch';
import createClient from 'openapi-fetch';
import type { ProblemName } from './generated/problems.js';
import { PROBLEM_STATUS, PROBLEM_TYPE_BASE } from './generated/problems.js';
import type { components, paths } from './generated/schema.js';

export type { ProblemName } from './generated/problems.js';
/**
 * A typed client of the partner data API. Types come from the OpenAPI document (openapi-typescript)
 * and requests go through openapi-fetch; this layer adds what a partner's code needs around them:
 * waits as `Retry-After` says on 429 and 503 (a bounded number of times), RFC 9457 problems as
 * {@link PartnerApiError}, page walking, and revalidation with `ETag`.
 */
export type { components, paths } from './generated/schema.js';

export type UsageReport = components['schemas']['UsageReport'];
export type PropertyList = components['schemas']['PropertyList'];
export type PropertySummary = components['schemas']['PropertySummary'];
export type PricingSignals = components['schemas']['PricingSignals'];
export type Problem = components['schemas']['Problem'];

export interface PartnerApiClientOptions {
  /** e.g. `https://…/partner-api/v1`: the base URL from your onboarding e-mail (sandbox and production differ). */
  readonly baseUrl: string | undefined;
  /** Your key, from your secret store: never from source code, a browser or a mobile app. */
  readonly apiKey: string | undefined;
  /** How many times to wait and retry after a 429 or 503 (default 3; 0 never retries). */
  readonly maxRetries?: number;
  /** The longest wait, in seconds, this client accepts from `Retry-After` (default 60). */
  readonly maxRetryAfterSeconds?: number;
  /** The fetch to use (default: the global fetch). */
  readonly fetch?: typeof fetch;
  /** How to wait (tests replace it). */
  readonly sleep?: (milliseconds: number) => Promise<void>;
}

/** A setting this client cannot work without, missing or wrong: thrown before any request. */
export class PartnerApiConfigError extends Error {
  override readonly name = 'PartnerApiConfigError';
}

/**
 * An error answer of the API: `problem` is its RFC 9457 body, `type` the problem's name when it is
 * one of the API's (branch on it), `requestId` what support asks for.
 */
export class PartnerApiError extends Error {
  override readonly name = 'PartnerApiError';
  readonly type: ProblemName | undefined;
  readonly requestId: string | undefined;

  constructor(
    readonly status: number,
    readonly problem: Partial<Problem>,
    /** Seconds the answer asked to wait (429, 503), when it said. */
    readonly retryAfterSeconds: number | undefined,
  ) {
    super(`${status} ${problem.detail ?? problem.title ?? 'error'}`);
    const name = problem.type?.startsWith(PROBLEM_TYPE_BASE)
      ? problem.type.slice(PROBLEM_TYPE_BASE.length)
      : '';
    this.type = name in PROBLEM_STATUS ? (name as ProblemName) : undefined;
    this.requestId = problem.request_id;
  }
}

/**
 * A walk through the pages of `GET /properties` that cannot end: the server linked to a page
 * (`cursor`) this walk had already read. Thrown instead of reading the same pages forever: start
 * the walk again, or report it to support with the cursor.
 */
export class PartnerApiPagingError extends Error {
  override readonly name = 'PartnerApiPagingError';

  constructor(
    /** The cursor the server gave again. */
    readonly cursor: string,
    /** The pages read before the repeat. */
    readonly pages: number,
  ) {
    super(
      `The server repeated a cursor after ${pages} pages (cursor ${cursor}): stopped the walk, which would never end.`,
    );
  }
}

/** An answer and its entity tag: pass it back as `previous` to revalidate. */
export interface Fetched<T> {
  readonly data: T;
  readonly etag: string | undefined;
  /** True when the server answered 304 and `data` is the previous answer's. */
  readonly notModified: boolean;
}

/** Options of a GET: the answer you hold, to revalidate it (`If-None-Match`). */
export interface Revalidation<T> {
  readonly previous?: Fetched<T>;
}

const RETRIED_STATUSES = new Set([429, 503]);

function requiredSetting(value: string | undefined, what: string, variable: string): string {
  const trimmed = value?.trim();
  if (!trimmed) throw new PartnerApiConfigError(`${what} is missing: set ${variable}.`);
  return trimmed;
}

/** Seconds of a `Retry-After` header (delay-seconds or an HTTP date), if it has one. */
function retryAfterSeconds(response: Response, nowMs: number): number | undefined {
  const value = response.headers.get('Retry-After')?.trim();
  if (!value) return undefined;
  if (/^\d+$/.test(value)) return Number(value);
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, Math.ceil((date - nowMs) / 1000));
}

/**
 * A fetch that waits and retries after 429 and 503 as `Retry-After` says: at most `maxRetries`
 * times, never longer than `maxRetryAfterSeconds` at once (a longer wait is the caller's decision:
 * the error goes up with `retryAfterSeconds`).
 */
function retryingFetch(options: PartnerApiClientOptions): typeof fetch {
  const send = options.fetch ?? globalThis.fetch;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const maxRetries = options.maxRetries ?? 3;
  const longest = options.maxRetryAfterSeconds ?? 60;
  return async (input, init) => {
    const request = new Request(input, init);
    for (let attempt = 0; ; attempt++) {
      const response = await send(request.clone());
      if (!RETRIED_STATUSES.has(response.status) || attempt >= maxRetries) return response;
      const wait = retryAfterSeconds(response, Date.now()) ?? 1;
      if (wait > longest) return response;
      await response.body?.cancel();
      await sleep(Math.max(wait, 1) * 1000);
    }
  };
}

/** The next page's cursor and limit from a `Link: <…>; rel="next"` header, if there is one. */
export function nextPage(response: Response): { limit: number; cursor: string } | undefined {
  const link = response.headers.get('Link');
  const target = link
    ?.split(',')
    .map((part) => /^\s*<([^>]*)>\s*;\s*rel="?next"?\s*$/i.exec(part)?.[1])
    .find((value) => value !== undefined);
  if (target === undefined) return undefined;
  const url = new URL(target, response.url || 'http://base.invalid/');
  const cursor = url.searchParams.get('cursor');
  const limit = Number(url.searchParams.get('limit'));
  return cursor && Number.isInteger(limit) && limit > 0 ? { limit, cursor } : undefined;
}

/** A GET route of the API, by its path in the document (`'/usage'`, `'/properties/{propertyId}/pricing-signals'`…). */
export type GetPath = {
  [Path in keyof paths]: paths[Path] extends { get: object } ? Path : never;
}[keyof paths];
type GetOperation<Path extends GetPath> = paths[Path]['get'];
/** What a GET route takes, as the document types it: `path` and `query` parameters (`{}` for none). */
export type GetParameters<Path extends GetPath> = Omit<GetOperation<Path>['parameters'], 'header' | 'cookie'>;
/** The 200 body of a GET route. */
export type GetBody<Path extends GetPath> =
  GetOperation<Path>['responses'][200]['content']['application/json'];

/** The answer as data, the previous answer on 304, or a PartnerApiError. */
async function settle<T>(
  call: Promise<{ data?: T; error?: unknown; response: Response }>,
  previous: Fetched<T> | undefined,
): Promise<Fetched<T> & { response: Response }> {
  const { data, error, response } = await call;
  const etag = response.headers.get('ETag') ?? undefined;
  if (response.status === 304 && previous) return { data: previous.data, etag, notModified: true, response };
  if (response.ok && data !== undefined) return { data, etag, notModified: false, response };
  const problem = typeof error === 'object' && error !== null ? (error as Partial<Problem>) : {};
  throw new PartnerApiError(response.status, problem, retryAfterSeconds(response, Date.now()));
}

/**
 * A GET of any route of the document with the client's key, waits and problems, revalidating
 * `previous` (If-None-Match); with the answer's response, for its headers.
 */
function getter(api: Client<paths>) {
  return async <Path extends GetPath>(
    path: Path,
    parameters: GetParameters<Path>,
    { previous }: Revalidation<GetBody<Path>> = {},
  ): Promise<Fetched<GetBody<Path>> & { response: Response }> => {
    // openapi-fetch types each call from a literal path; this one stands for every path at once.
    const send = api.GET as unknown as (
      path: string,
      init: object,
    ) => Promise<{ data?: GetBody<Path>; error?: unknown; response: Response }>;
    const header = previous?.etag ? { 'If-None-Match': previous.etag } : {};
    return settle(send(path, { params: { ...parameters, header } }), previous);
  };
}

/**
 * GET /properties with `limit`, page after page (following `Link: rel="next"`), in id order; a
 * link back to a page already read throws {@link PartnerApiPagingError}.
 */
async function* propertyPagesOf(
  get: Get,
  { limit = 1_000 }: { limit?: number } = {},
): AsyncGenerator<PropertySummary[]> {
  let query: { limit: number; cursor?: string } | undefined = { limit };
  const followed = new Set<string>();
  for (let pages = 1; query; pages++) {
    const { data, response } = await get('/properties', { query });
    yield data.properties;
    const next = nextPage(response);
    if (next && followed.has(next.cursor)) throw new PartnerApiPagingError(next.cursor, pages);
    if (next) followed.add(next.cursor);
    query = next;
  }
}

/** An answer without its response, as the client's methods return it. */
const fetched = async <T>(answer: Promise<Fetched<T> & { response: Response }>): Promise<Fetched<T>> => {
  const { response: _response, ...rest } = await answer;
  return rest;
};

/** A GET of one route by its path: what `getter` makes. */
type Get = ReturnType<typeof getter>;

/** The client's methods by name: each is `get` of one route (or of its pages) with typed options. */
function namedMethods(get: Get) {
  const propertyPages = (options: { limit?: number } = {}) => propertyPagesOf(get, options);
  return {
    /** GET /usage: seat usage of the hosts you sponsor. */
    usage: ({ previous }: Revalidation<UsageReport> = {}): Promise<Fetched<UsageReport>> =>
      fetched(get('/usage', {}, { previous })),

    /** GET /properties: the whole list in one answer. */
    properties: ({ previous }: Revalidation<PropertyList> = {}): Promise<Fetched<PropertyList>> =>
      fetched(get('/properties', {}, { previous })),

    /**
     * GET /properties?pms_hotel_id=…: your property with this id of your own system (the
     * `pms_hotel_id` of its activation link), or undefined when none of the hosts you sponsor has it.
     */
    async propertyByPmsHotelId(pmsHotelId: string): Promise<PropertySummary | undefined> {
      const { data } = await get('/properties', { query: { pms_hotel_id: pmsHotelId } });
      return data.properties[0];
    },

    propertyPages,

    /** Every property, read page by page. */
    async allProperties({ limit = 1_000 }: { limit?: number } = {}): Promise<PropertySummary[]> {
      const all: PropertySummary[] = [];
      for await (const page of propertyPages({ limit })) all.push(...page);
      return all;
    },

    /** GET /properties/{propertyId}/pricing-signals. */
    pricingSignals: (
      propertyId: number,
      { lookbackDays, previous }: { lookbackDays?: number } & Revalidation<PricingSignals> = {},
    ): Promise<Fetched<PricingSignals>> =>
      fetched(
        get(
          '/properties/{propertyId}/pricing-signals',
          {
            path: { propertyId },
            ...(lookbackDays === undefined ? {} : { query: { lookback_days: lookbackDays } }),
          },
          { previous },
        ),
      ),
  };
}

/** Creates a client; throws {@link PartnerApiConfigError} when the base URL or the key is missing. */
export function createPartnerApiClient(options: PartnerApiClientOptions) {
  const baseUrl = requiredSetting(
    options.baseUrl,
    'The API base URL',
    'PARTNER_API to the base URL from your onboarding e-mail (…/partner-api/v1)',
  );
  if (!/^https?:\/\/[^\s/]+/.test(baseUrl))
    throw new PartnerApiConfigError(
      `The API base URL must start with https:// (or http:// for a local server); got "${baseUrl}".`,
    );
  const apiKey = requiredSetting(options.apiKey, 'The API key', 'PARTNER_API_KEY from your secret store');
  const get = getter(
    createClient<paths>({
      baseUrl: baseUrl.replace(/\/+$/, ''),
      fetch: retryingFetch(options),
      headers: { Authorization: `Bearer ${apiKey}`, Accept: 'application/json' },
    }),
  );
  return {
    /**
     * GET on any route of the API by its path in the document, typed from it, with the waits,
     * problems and revalidation of the named methods (each of which is one of these):
     * `get('/properties/{propertyId}/pricing-signals', { path: { propertyId: 2 } })`.
     */
    get: <Path extends GetPath>(
      path: Path,
      parameters: GetParameters<Path>,
      revalidation?: Revalidation<GetBody<Path>>,
    ): Promise<Fetched<GetBody<Path>>> => fetched(get(path, parameters, revalidation)),

    ...namedMethods(get),
  };
}

export type PartnerApiClient = ReturnType<typeof createPartnerApiClient>;
