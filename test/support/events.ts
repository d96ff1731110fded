import type { APIGatewayProxyEvent, APIGatewayRequestAuthorizerEvent, Context } from 'aws-lambda';
import { SCOPES } from '../../core/domain/scopes';

/** An API Gateway REST proxy event as the authorizer-protected integration receives it. */
export function proxyEvent(overrides: {
  path?: string;
  resource?: string;
  pathParameters?: Record<string, string> | null;
  query?: Record<string, string[]> | null;
  headers?: Record<string, string>;
  authorizer?: Record<string, string> | null;
  httpMethod?: string;
  body?: string | null;
}): APIGatewayProxyEvent {
  const query = overrides.query ?? null;
  return {
    resource: overrides.resource ?? '/partner-api/v1/usage',
    path: overrides.path ?? '/partner-api/v1/usage',
    httpMethod: overrides.httpMethod ?? 'GET',
    headers: overrides.headers ?? { Accept: 'application/json' },
    multiValueHeaders: {},
    queryStringParameters: query
      ? Object.fromEntries(Object.entries(query).map(([k, v]) => [k, v.at(-1) ?? '']))
      : null,
    multiValueQueryStringParameters: query,
    pathParameters: overrides.pathParameters ?? null,
    stageVariables: null,
    body: overrides.body ?? null,
    isBase64Encoded: false,
    requestContext: {
      requestId: 'req-123',
      authorizer:
        overrides.authorizer === undefined
          ? {
              principalId: 'partner:7',
              partnerId: '7',
              keyPrefix: 'svc_TestKey1',
              scopes: SCOPES.join(' '),
            }
          : overrides.authorizer,
    } as unknown as APIGatewayProxyEvent['requestContext'],
  };
}

export function authorizerEvent(headers: Record<string, string>): APIGatewayRequestAuthorizerEvent {
  return {
    type: 'REQUEST',
    methodArn: 'arn:aws:execute-api:eu-west-1:123456789012:api/sandbox/GET/partner-api/v1/usage',
    resource: '/partner-api/v1/usage',
    path: '/partner-api/v1/usage',
    httpMethod: 'GET',
    headers,
    multiValueHeaders: {},
    queryStringParameters: null,
    multiValueQueryStringParameters: null,
    pathParameters: null,
    stageVariables: null,
    requestContext: {} as APIGatewayRequestAuthorizerEvent['requestContext'],
  };
}

export const lambdaContext = {
  functionName: 'test',
  functionVersion: '$LATEST',
  invokedFunctionArn: 'arn:aws:lambda:eu-west-1:123456789012:function:test',
  memoryLimitInMB: '256',
  awsRequestId: 'aws-req-1',
  logGroupName: '/aws/lambda/test',
  logStreamName: 'test',
  callbackWaitsForEmptyEventLoop: true,
  getRemainingTimeInMillis: () => 10_000,
  done: () => undefined,
  fail: () => undefined,
  succeed: () => undefined,
} as Context;

/** An AWS SDK service error as the client throws it. */
export function awsError(name: string, message = name): Error {
  return Object.assign(new Error(message), { name, $fault: 'client', $metadata: {} });
}
