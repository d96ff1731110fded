import { createHash, randomBytes } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type fc from 'fast-check';
import { forgetCachedKeys } from '../../../lambdas/api/authenticate';
import { handler as authorizer } from '../../../lambdas/api/authorizer';
import { forgetCachedLookups } from '../../../lambdas/pages/activation-lookups';
import { handler as revealPage } from '../../../lambdas/pages/reveal';
import type { OperatorTarget } from '../../../operations/target';
import { authorizerEvent, lambdaContext } from '../events';

/*
 * The model-based test of keys, reveals, links and sessions (test/integration/key-
 * lifecycle.model.test.ts): its model, and the real pages and authorizer its commands drive.
 */

export const MODEL_TABLE = `partner-api-model-${Date.now().toString(36)}`;

export const MINUTE = 60_000;
/** Sequences start within a year after this instant (a fixed one, so that a seed replays exactly). */
export const MODEL_EPOCH = Date.parse('2026-01-01T00:00:00.000Z');
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;
/** The authorizer caches key records and partners' standing this long. */
export const AUTHORIZER_CACHE_MS = 25_000;
export const REVEAL_LIFETIME_MS = 7 * DAY;
/** A reveal record's TTL: a week after the link expires. */
export const REVEAL_TTL_MS = 2 * REVEAL_LIFETIME_MS;
export const CHOOSING_MS = 30 * MINUTE;
const BASE = 'metrics:read';
export const REVENUE = 'revenue:read';

// --- The model -------------------------------------------------------------------------------

type KeyState = 'pending' | 'active' | 'retiring' | 'revoked' | 'superseded';

export interface ModelKey {
  readonly prefix: string;
  readonly partner: ModelPartner;
  readonly revealUrl: string;
  readonly createdAt: number;
  readonly retires: readonly string[];
  readonly graceMs: number;
  state: KeyState;
  expiresAt?: number;
  scopes: string[];
  /** The key, once its reveal gave it to the partner. */
  plaintext?: string;
  revealSpent: boolean;
  /** How the reveal answers if nobody spent it: its key was superseded or revoked meanwhile. */
  tombstone?: 'superseded' | 'revoked';
  revealDeleted: boolean;
  /** When it last changed standing (the authorizer may answer from before, for 25 s). */
  changedAt: number;
  wasInForce: boolean;
  leftForce: boolean;
}

export interface ModelPartner {
  readonly slug: string;
  readonly id: number;
  revenue: boolean;
  suspended: boolean;
  changedAt: number;
  /** An operator revoked a key that was in force: the partner may be left without one, on purpose. */
  revokedInForce: boolean;
}

interface ModelLink {
  readonly partner: ModelPartner;
  readonly url: string;
  readonly nonce: string;
  readonly expiresAt: number;
  usedBy?: ModelBrowser;
  nonceDeleted: boolean;
}

interface ModelBrowser {
  readonly link: ModelLink;
  cookie: string;
  sessionEnds: number;
  provisioned: boolean;
}

export interface Model {
  now: number;
  readonly partners: ModelPartner[];
  readonly keys: ModelKey[];
  readonly links: ModelLink[];
  readonly browsers: ModelBrowser[];
}

export interface Real {
  readonly target: OperatorTarget;
  /** The API Gateway keys of the usage plan, as a deployed stage would hold them. */
  readonly usagePlan: Set<string>;
}

export const inForce = (key: ModelKey, now: number) =>
  key.state === 'active' || (key.state === 'retiring' && (key.expiresAt ?? 0) > now);

export function standing(key: ModelKey, now: number): string {
  if (key.state === 'retiring' && (key.expiresAt ?? 0) <= now) return 'expired';
  return key.state;
}

export const agreementScopes = (partner: ModelPartner) => (partner.revenue ? [BASE, REVENUE] : [BASE]);

/** Records that a key left force (a fact the model never undoes). */
export function noteForce(model: Model): void {
  for (const key of model.keys) {
    if (inForce(key, model.now)) key.wasInForce = true;
    else if (key.wasInForce && !key.leftForce) {
      key.leftForce = true;
      key.changedAt = Math.max(key.changedAt, key.expiresAt ?? model.now);
    }
  }
}

// --- Driving the real pages ------------------------------------------------------------------

export function pageEvent(input: {
  method: 'GET' | 'POST';
  url: string;
  pathParameters: Record<string, string>;
  cookie?: string;
  body?: string;
  contentType?: string;
}): APIGatewayProxyEvent {
  const url = new URL(input.url);
  const query: Record<string, string[]> = {};
  for (const [name, value] of url.searchParams) query[name] = [...(query[name] ?? []), value];
  const headers: Record<string, string> = {
    Host: url.host,
    ...(input.cookie ? { Cookie: input.cookie } : {}),
    ...(input.contentType ? { 'Content-Type': input.contentType } : {}),
  };
  return {
    resource: url.pathname,
    path: url.pathname,
    httpMethod: input.method,
    headers,
    multiValueHeaders: Object.fromEntries(Object.entries(headers).map(([name, value]) => [name, [value]])),
    queryStringParameters: Object.keys(query).length
      ? Object.fromEntries(Object.entries(query).map(([name, values]) => [name, values.at(-1) ?? '']))
      : null,
    multiValueQueryStringParameters: Object.keys(query).length ? query : null,
    pathParameters: input.pathParameters,
    stageVariables: null,
    body: input.body ?? null,
    isBase64Encoded: false,
    requestContext: { requestId: randomBytes(8).toString('hex') } as APIGatewayProxyEvent['requestContext'],
  };
}

export async function page(
  handler: (event: APIGatewayProxyEvent, context: typeof lambdaContext) => Promise<APIGatewayProxyResult>,
  event: APIGatewayProxyEvent,
) {
  // The pages cache a partner for a minute; provisioning itself checks the stored partner.
  forgetCachedLookups();
  return handler(event, lambdaContext);
}

export const setCookie = (response: APIGatewayProxyResult) => {
  const header = response.headers?.['Set-Cookie'] ?? response.multiValueHeaders?.['Set-Cookie']?.[0];
  return typeof header === 'string' ? (header.split(';')[0] ?? '') : '';
};

export async function postReveal(revealUrl: string) {
  const [pageUrl = '', secret = ''] = revealUrl.split('#');
  const digest = createHash('sha256').update(Buffer.from(secret, 'base64url')).digest('base64url');
  const response = await page(
    revealPage,
    pageEvent({
      method: 'POST',
      url: pageUrl,
      pathParameters: { revealId: pageUrl.split('/').at(-1) ?? '' },
      body: JSON.stringify({ secret_digest: digest }),
      contentType: 'application/json',
    }),
  );
  return {
    status: response.statusCode,
    body: JSON.parse(response.body) as { message?: string; iv?: string; ciphertext?: string },
    secret,
  };
}

/** The authorizer's verdict on a key; with `fresh`, its caches emptied first. */
export async function verdict(key: string, fresh: boolean) {
  if (fresh) forgetCachedKeys();
  const result = await authorizer(authorizerEvent({ Authorization: `Bearer ${key}` }));
  const effect = (result.policyDocument.Statement[0] as { Effect: string }).Effect;
  return {
    allowed: effect === 'Allow',
    problem: String(result.context?.problemType ?? '')
      .split('/')
      .at(-1),
    scopes: String(result.context?.scopes ?? '')
      .split(' ')
      .filter(Boolean)
      .sort(),
  };
}

// --- Commands ----------------------------------------------------------------------------------

export type Command = fc.AsyncCommand<Model, Real, boolean>;
export const pick = <T>(items: readonly T[], index: number): T => items[index % items.length] as T;
