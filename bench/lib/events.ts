import type { APIGatewayProxyEvent } from 'aws-lambda';
import { SCOPES } from '../../core/domain/scopes';
import { authorizerEvent, lambdaContext, proxyEvent as testProxyEvent } from '../../test/support/events';

/** A REST proxy event of an authorized request, built by the tests' own builder. */
export function proxyEvent(input: {
  path: string;
  resource: string;
  partnerId: number;
  keyPrefix: string;
  pathParameters?: Record<string, string>;
  query?: Record<string, string>;
  headers?: Record<string, string>;
}): APIGatewayProxyEvent {
  return testProxyEvent({
    path: input.path,
    resource: input.resource,
    pathParameters: input.pathParameters ?? null,
    query: input.query
      ? Object.fromEntries(Object.entries(input.query).map(([name, value]) => [name, [value]]))
      : null,
    headers: input.headers,
    authorizer: {
      principalId: `partner:${input.partnerId}`,
      partnerId: String(input.partnerId),
      keyPrefix: input.keyPrefix,
      scopes: SCOPES.join(' '),
    },
  });
}

export { authorizerEvent, lambdaContext };

/**
 * A mocked rate-window write that admits: the stored list as DynamoDB returns it (ALL_NEW), with
 * one time (5 bytes, ms since the window's epoch). Constant, so the mock costs nothing per call.
 */
export const ADMITTED_RATE_WINDOW_WRITE = {
  Attributes: { admitted: [new Uint8Array([0, 0, 0, 0, 1])] },
};

/** The partner API routes as the bench calls them. */
export const API_TARGETS = [
  { id: 'usage', label: 'GET /usage', path: '/usage', resource: '/usage' },
  { id: 'properties', label: 'GET /properties', path: '/properties', resource: '/properties' },
  {
    id: 'pricingSignals',
    label: 'GET /properties/{id}/pricing-signals',
    path: '/properties/2/pricing-signals',
    resource: '/properties/{propertyId}/pricing-signals',
  },
] as const;
