import { randomBytes } from 'node:crypto';
import type { APIGatewayAuthorizerResult, APIGatewayProxyResult } from 'aws-lambda';
import type { DynamoUsage } from './dynamo-meter';
import { authorizerEvent, lambdaContext, proxyEvent } from './events';

/**
 * The real handlers, imported in this process after `useServiceTable` pointed the data modules
 * at the service's DynamoDB Local, with a meter on the shared document client. Loaded once.
 */
async function load() {
  const { meterDynamo } = await import('./dynamo-meter');
  const { dynamoDb } = await import('../../lambdas/data/db');
  return {
    meter: meterDynamo(dynamoDb()),
    authorizer: (await import('../../lambdas/api/authorizer')).handler,
    forgetCachedKeys: (await import('../../lambdas/api/authenticate')).forgetCachedKeys,
    usage: (await import('../../lambdas/api/usage')).handler,
    properties: (await import('../../lambdas/api/properties')).handler,
    pricingSignals: (await import('../../lambdas/api/pricing-signals')).handler,
  };
}

let loaded: ReturnType<typeof load> | undefined;

export function inProcess(): ReturnType<typeof load> {
  loaded ??= load();
  return loaded;
}

export interface Metered<T> {
  readonly value: T;
  readonly usage: DynamoUsage;
  readonly ms: number;
}

async function metered<T>(work: () => Promise<T>): Promise<Metered<T>> {
  const { meter } = await inProcess();
  meter.take();
  const started = performance.now();
  const value = await work();
  const ms = performance.now() - started;
  return { value, usage: meter.take(), ms };
}

export async function callAuthorizer(key: string): Promise<Metered<APIGatewayAuthorizerResult>> {
  const { authorizer } = await inProcess();
  return metered(() => authorizer(authorizerEvent({ Authorization: `Bearer ${key}` })));
}

export type ApiRoute = 'usage' | 'properties' | 'pricingSignals';

/** A key prefix no real key has: the handlers only count requests against it. */
export function benchKeyPrefix(): string {
  return `svc_${randomBytes(6).toString('base64url').replace(/[-_]/g, 'x').slice(0, 8)}`;
}

export async function callApi(
  route: ApiRoute,
  input: {
    partnerId: number;
    keyPrefix: string;
    propertyId?: number;
    query?: Record<string, string>;
    headers?: Record<string, string>;
  },
): Promise<Metered<APIGatewayProxyResult>> {
  const handlers = await inProcess();
  const handler = handlers[route];
  const path =
    route === 'usage'
      ? '/usage'
      : route === 'properties'
        ? '/properties'
        : `/properties/${input.propertyId ?? 1}/pricing-signals`;
  const resource = route === 'pricingSignals' ? '/properties/{propertyId}/pricing-signals' : path;
  const event = proxyEvent({
    path: `/partner-api/v1${path}`,
    resource: `/partner-api/v1${resource}`,
    partnerId: input.partnerId,
    keyPrefix: input.keyPrefix,
    pathParameters: route === 'pricingSignals' ? { propertyId: String(input.propertyId ?? 1) } : undefined,
    query: input.query,
    headers: input.headers,
  });
  return metered(() => handler(event, lambdaContext));
}

/** The response body as bytes (decoded from base64 when the handler encoded it). */
export function bodyBytes(result: APIGatewayProxyResult): Buffer {
  return result.isBase64Encoded ? Buffer.from(result.body, 'base64') : Buffer.from(result.body);
}

/** A header of a proxy result, whatever its case. */
export function resultHeader(result: APIGatewayProxyResult, name: string): string | undefined {
  const entry = Object.entries(result.headers ?? {}).find(
    ([key]) => key.toLowerCase() === name.toLowerCase(),
  );
  return entry === undefined ? undefined : String(entry[1]);
}
