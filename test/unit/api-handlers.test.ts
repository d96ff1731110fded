import { DynamoDBDocumentClient, GetCommand, QueryCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RATE_LIMIT, RATE_LIMIT_WINDOW_SECONDS } from '../../core/domain/rate-limit';
import { handler as pricingSignals } from '../../lambdas/api/pricing-signals';
import { handler as properties } from '../../lambdas/api/properties';
import { handler as usage } from '../../lambdas/api/usage';
import { forgetRateWindows } from '../../lambdas/data/rate-windows';
import { awsError, lambdaContext, proxyEvent } from '../support/events';
import { fakeRateWindowTable } from '../support/rate-window-table';

const dynamo = mockClient(DynamoDBDocumentClient);
let rateWindows: ReturnType<typeof fakeRateWindowTable>;

beforeEach(() => {
  dynamo.reset();
  forgetRateWindows();
  rateWindows = fakeRateWindowTable(dynamo);
});
afterEach(() => vi.useRealTimers());

function body(result: { body: string }) {
  return JSON.parse(result.body) as Record<string, unknown>;
}

describe('GET /usage handler', () => {
  it('answers the usage report of the partner from the authorizer context only', async () => {
    dynamo.on(QueryCommand).resolves({
      Items: [
        { hostUserId: 12, activeSeats: 3 },
        { hostUserId: 4, activeSeats: 1 },
      ],
    });

    const result = await usage(proxyEvent({}), lambdaContext);

    expect(result.statusCode).toBe(200);
    expect(result.headers?.['Content-Type']).toBe('application/json');
    expect(body(result)).toMatchObject({
      partner_id: 7,
      active_seats: 4,
      hosts: [
        { host_user_id: 4, active_seats: 1 },
        { host_user_id: 12, active_seats: 3 },
      ],
    });
    expect(dynamo.commandCalls(QueryCommand)[0]?.args[0].input.ExpressionAttributeValues?.[':partner']).toBe(
      'PARTNER#7',
    );
    expect(result.headers?.['X-Request-Id']).toBe('req-123');
    expect(result.headers?.['X-RateLimit-Remaining']).toBe('119');
  });

  it.each([
    ['throttling', awsError('ThrottlingException')],
    ['provisioned throughput exceeded', awsError('ProvisionedThroughputExceededException')],
    ['a client-side timeout', awsError('TimeoutError', 'Connection timed out after 2500 ms')],
    [
      'a refused connection',
      Object.assign(new Error('connect ECONNREFUSED 10.0.0.1:443'), { code: 'ECONNREFUSED' }),
    ],
  ])('turns %s into a 503 problem with Retry-After, not a 500', async (_, fault) => {
    dynamo.on(QueryCommand).rejects(fault);

    const result = await usage(proxyEvent({}), lambdaContext);

    expect(result.statusCode).toBe(503);
    expect(result.headers?.['Content-Type']).toBe('application/problem+json');
    expect(result.headers?.['Retry-After']).toBe('2');
    expect(body(result)).toMatchObject({
      status: 503,
      type: expect.stringContaining('service-unavailable'),
      request_id: 'req-123',
    });
  });

  it('turns a throttled rate-limit write into a 503 too', async () => {
    dynamo.on(UpdateCommand).rejects(awsError('ProvisionedThroughputExceededException'));

    const result = await usage(proxyEvent({}), lambdaContext);

    expect(result.statusCode).toBe(503);
    // The delay of every transient DynamoDB fault (as above), not the rate window's reset.
    expect(result.headers?.['Retry-After']).toBe('2');
    expect(body(result)).toMatchObject({ status: 503, type: expect.stringContaining('service-unavailable') });
  });

  it('hides unexpected failures behind a generic 500 problem with no internals', async () => {
    dynamo
      .on(QueryCommand)
      .rejects(new TypeError("Cannot read properties of undefined (reading 'secretTableInternals')"));

    const result = await usage(proxyEvent({}), lambdaContext);

    expect(result.statusCode).toBe(500);
    expect(result.body).not.toMatch(/secretTableInternals|TypeError|at \w+ \(/);
    expect(body(result)).toMatchObject({ status: 500, title: 'Internal error', request_id: 'req-123' });
  });

  it('logs failures with the request id a partner quotes, and the key only by its prefix', async () => {
    const { logger } = await import('../../lambdas/common/logger');
    const appended = vi.spyOn(logger, 'appendKeys');
    const logged = vi.spyOn(logger, 'error');
    dynamo.on(QueryCommand).rejects(new Error('boom'));

    await usage(proxyEvent({}), lambdaContext);

    expect(appended).toHaveBeenCalledWith({ requestId: 'req-123', keyPrefix: 'svc_TestKey1', partnerId: 7 });
    expect(logged).toHaveBeenCalledWith('Unexpected failure', expect.anything());
    appended.mockRestore();
    logged.mockRestore();
  });

  it('refuses a request the rate limit has already filled, without touching the data', async () => {
    // A frozen clock: all 120 admissions at one instant, so the window frees a slot exactly one
    // window length later.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.parse('2026-11-22T15:30:00.000Z') });
    dynamo.on(QueryCommand).resolves({ Items: [] });
    for (let i = 0; i < RATE_LIMIT.limit; i++)
      expect((await usage(proxyEvent({}), lambdaContext)).statusCode).toBe(200);
    dynamo.resetHistory();

    const result = await usage(proxyEvent({}), lambdaContext);

    expect(result.statusCode).toBe(429);
    expect(result.headers?.['Retry-After']).toBe(String(RATE_LIMIT_WINDOW_SECONDS));
    expect(result.headers?.['X-RateLimit-Remaining']).toBe('0');
    expect(dynamo.calls()).toHaveLength(0);
  });

  it('answers 406 to a client that accepts no JSON', async () => {
    dynamo.on(QueryCommand).resolves({ Items: [] });

    const result = await usage(proxyEvent({ headers: { accept: 'text/html' } }), lambdaContext);

    expect(result.statusCode).toBe(406);
  });

  it('refuses partner_id and unknown query parameters with a 400 that says why', async () => {
    const partnerId = await usage(proxyEvent({ query: { partner_id: ['8'] } }), lambdaContext);
    const typo = await usage(proxyEvent({ query: { lookback_days: ['3'] } }), lambdaContext);

    expect(partnerId.statusCode).toBe(400);
    expect(body(partnerId).detail).toContain('identified by your API key');
    expect(typo.statusCode).toBe(400);
    expect(body(typo).detail).toContain('takes no query parameters');
  });

  it('fails closed when no authorizer context reached it', async () => {
    const result = await usage(proxyEvent({ authorizer: null }), lambdaContext);

    expect(result.statusCode).toBe(500);
    expect(dynamo.commandCalls(QueryCommand)).toHaveLength(0);
  });
});

describe('revenue routes', () => {
  it('answers 403 without the revenue:read scope, after counting the request', async () => {
    const result = await properties(
      proxyEvent({
        authorizer: {
          principalId: 'partner:7',
          partnerId: '7',
          keyPrefix: 'svc_TestKey1',
          scopes: 'metrics:read',
        },
      }),
      lambdaContext,
    );

    expect(result.statusCode).toBe(403);
    expect(body(result).type).toContain('insufficient-scope');
    // One admission written (the first request of a fresh key creates its window), none refused.
    expect(rateWindows.writes).toMatchObject({ admitted: 1, refused: 0 });
    expect(dynamo.commandCalls(QueryCommand)).toHaveLength(0);
  });

  it('answers 404 for a property the partner does not sponsor, from a read keyed by the partner', async () => {
    dynamo.on(GetCommand).resolves({});

    const result = await pricingSignals(proxyEvent({ pathParameters: { propertyId: '55' } }), lambdaContext);

    expect(result.statusCode).toBe(404);
    expect(dynamo.commandCalls(GetCommand)[0]?.args[0].input.Key).toEqual({
      PK: 'PARTNER#7',
      SK: 'PROPERTY#000000000055',
    });
  });

  it.each(['0', '366', '-1', '1.5', 'abc', '', '1e2', ' 30'])(
    'refuses lookback_days=%j with a 400',
    async (value) => {
      const result = await pricingSignals(
        proxyEvent({ pathParameters: { propertyId: '1' }, query: { lookback_days: [value] } }),
        lambdaContext,
      );

      expect(result.statusCode).toBe(400);
      expect(body(result).detail).toContain('lookback_days must be an integer from 1 to 365');
    },
  );

  it.each(['abc', '0', '-3', '1.0', '99999999999999999'])(
    'refuses propertyId=%j with a 400',
    async (value) => {
      const result = await pricingSignals(
        proxyEvent({ pathParameters: { propertyId: value } }),
        lambdaContext,
      );

      expect(result.statusCode).toBe(400);
      expect(body(result).detail).toContain('propertyId must be a positive integer');
    },
  );
});
