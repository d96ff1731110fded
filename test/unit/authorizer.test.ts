import { DynamoDBDocumentClient, GetCommand } from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { renderGatewayResponse } from '../../core/contract/gateway-responses';
import { PROBLEM_CONTENT_TYPE, problemTypeUri } from '../../core/contract/problems';
import { generateApiKey } from '../../core/domain/api-key';
import { forgetCachedKeys, presentedKey } from '../../lambdas/api/authenticate';
import { handler, templateSafe } from '../../lambdas/api/authorizer';
import { logger } from '../../lambdas/common/logger';
import { authorizerEvent, awsError } from '../support/events';

const dynamo = mockClient(DynamoDBDocumentClient);
const issued = generateApiKey();
const record = {
  prefix: issued.prefix,
  partnerId: 7,
  digest: new Uint8Array(issued.digest),
  scopes: ['metrics:read'],
  createdAt: '2026-01-01T00:00:00Z',
  state: 'active',
};
const partner = { scopes: ['metrics:read', 'revenue:read'] };

/** The table as the mocked client answers GetItem: the key's item and its partner's, by PK. */
function table(items: { key?: Record<string, unknown>; partner?: Record<string, unknown> | null }) {
  dynamo.on(GetCommand).callsFake((input: { Key: { PK: string } }) => {
    if (input.Key.PK === `APIKEY#${issued.prefix}`) return { Item: items.key };
    if (input.Key.PK === 'PARTNER#7') return items.partner === null ? {} : { Item: items.partner ?? partner };
    return {};
  });
}

beforeEach(() => {
  dynamo.reset();
  forgetCachedKeys();
});
afterEach(() => vi.useRealTimers());

describe('REQUEST authorizer', () => {
  it('allows a valid key with the partner identity and usage-plan key, from the key and its partner (no TTL item)', async () => {
    table({ key: { ...record, usageIdentifierKey: 'apigw-key-value' } });

    const result = await handler(authorizerEvent({ Authorization: `Bearer ${issued.key}` }));

    expect(result.policyDocument.Statement[0]).toMatchObject({ Effect: 'Allow' });
    expect(result.context).toEqual({ partnerId: 7, keyPrefix: issued.prefix, scopes: 'metrics:read' });
    expect(result.usageIdentifierKey).toBe('apigw-key-value');
    expect(dynamo.commandCalls(GetCommand).map((call) => call.args[0].input.Key)).toEqual([
      { PK: `APIKEY#${issued.prefix}`, SK: 'APIKEY' },
      { PK: 'PARTNER#7', SK: 'PARTNER' },
    ]);
  });

  it('holds a key to its partner’s agreement: a scope the agreement dropped is gone at once', async () => {
    table({
      key: { ...record, scopes: ['metrics:read', 'revenue:read'] },
      partner: { scopes: ['metrics:read'] },
    });

    const result = await handler(authorizerEvent({ Authorization: `Bearer ${issued.key}` }));

    expect(result.context).toMatchObject({ scopes: 'metrics:read' });
  });

  it('keeps a partner key cached while a flood of well-formed random keys comes and goes', async () => {
    table({ key: record });
    const allowed = async () =>
      (await handler(authorizerEvent({ Authorization: `Bearer ${issued.key}` }))).policyDocument.Statement[0]
        ?.Effect;

    expect(await allowed()).toBe('Allow');
    for (let index = 0; index < 12_000; index++)
      await handler(authorizerEvent({ Authorization: `Bearer ${generateApiKey().key}` }));
    const readsBefore = dynamo.commandCalls(GetCommand).length;
    expect(await allowed()).toBe('Allow');

    // Still cached: no read for the partner's key after 12,000 unknown ones.
    expect(dynamo.commandCalls(GetCommand)).toHaveLength(readsBefore);
  });

  it('accepts X-Enterprise-Key, prefers Authorization when both are sent, and wants the Bearer scheme', () => {
    expect(presentedKey({ 'x-enterprise-key': 'svc_a' })).toEqual({ key: 'svc_a' });
    expect(presentedKey({ 'X-Enterprise-Key': 'svc_b', AUTHORIZATION: 'bearer svc_c' })).toEqual({
      key: 'svc_c',
    });
    expect(presentedKey({ Authorization: 'Basic dXNlcjpwYXNz' })).toEqual({ wrongScheme: true });
    expect(presentedKey({ Authorization: issued.key })).toEqual({ wrongScheme: true });
    expect(presentedKey({ Authorization: '   ' })).toBeUndefined();
    // An unset variable in `Authorization: Bearer $KEY`: no key, not a malformed one.
    expect(presentedKey({ Authorization: 'Bearer ' })).toBeUndefined();
    expect(presentedKey({ authorization: 'bearer' })).toBeUndefined();
    expect(presentedKey({ Authorization: 'Bearer ', 'X-Enterprise-Key': 'svc_d' })).toEqual({ key: 'svc_d' });
    expect(presentedKey(null)).toBeUndefined();
  });

  it('refuses a key sent without the Bearer scheme, saying how to send it', async () => {
    const result = await handler(authorizerEvent({ Authorization: issued.key }));

    expect(result.context).toMatchObject({
      problemType: expect.stringContaining('malformed-api-key'),
      problemDetail: expect.stringContaining('Bearer'),
    });
    expect(dynamo.calls()).toHaveLength(0);
  });

  it('throws Unauthorized (API Gateway 401) when no key is sent', async () => {
    await expect(handler(authorizerEvent({}))).rejects.toThrow('Unauthorized');
  });

  it('refuses a malformed or mistyped key without reading the table', async () => {
    const mistyped = `${issued.key.slice(0, -1)}${issued.key.endsWith('A') ? 'B' : 'A'}`;

    for (const key of ['hello', mistyped, `${issued.key}x`]) {
      const result = await handler(authorizerEvent({ Authorization: `Bearer ${key}` }));
      expect(result.policyDocument.Statement[0]).toMatchObject({ Effect: 'Deny' });
      expect(result.context?.problemType).toContain('malformed-api-key');
    }
    expect(dynamo.calls()).toHaveLength(0);
  });

  it.each([
    ['unknown', undefined, undefined, 'unknown-api-key'],
    ['a different digest', { ...record, digest: new Uint8Array(32) }, undefined, 'unknown-api-key'],
    ['never revealed (pending)', { ...record, state: 'pending' }, undefined, 'unknown-api-key'],
    ['stateless (not written by this code)', { ...record, state: undefined }, undefined, 'unknown-api-key'],
    [
      'revoked',
      { ...record, state: 'revoked', revokedAt: '2026-02-01T00:00:00Z' },
      undefined,
      'revoked-api-key',
    ],
    ['superseded', { ...record, state: 'superseded' }, undefined, 'revoked-api-key'],
    [
      'expired',
      { ...record, state: 'retiring', expiresAt: '2026-02-01T00:00:00Z' },
      undefined,
      'expired-api-key',
    ],
    [
      'suspended partner’s',
      record,
      { ...partner, suspension: { at: '2026-02-01T00:00:00Z', reason: 'unpaid' } },
      'partner-suspended',
    ],
    ['partnerless', record, null, 'unknown-api-key'],
  ])('denies a %s key with its own problem type', async (_, key, partnerItem, problem) => {
    table({ key, partner: partnerItem });

    const result = await handler(authorizerEvent({ 'X-Enterprise-Key': issued.key }));

    expect(result.policyDocument.Statement[0]).toMatchObject({ Effect: 'Deny' });
    expect(result.context?.problemType).toBe(
      `https://developers.example.com/partner-api/problems/${problem}`,
    );
    expect(String(result.context?.problemDetail)).not.toContain(issued.key);
  });

  it('caches a key for 25 s at most, so a revocation is seen within 30 s', async () => {
    vi.useFakeTimers({ now: Date.parse('2026-11-22T10:00:00Z') });
    table({ key: record });
    const ask = () => handler(authorizerEvent({ Authorization: `Bearer ${issued.key}` }));

    expect((await ask()).policyDocument.Statement[0]).toMatchObject({ Effect: 'Allow' });
    table({ key: { ...record, state: 'revoked', revokedAt: '2026-11-22T10:00:01Z' } });
    vi.advanceTimersByTime(24_000);
    expect((await ask()).policyDocument.Statement[0]).toMatchObject({ Effect: 'Allow' });
    expect(dynamo.commandCalls(GetCommand)).toHaveLength(2);
    vi.advanceTimersByTime(1_000);
    expect((await ask()).context?.problemType).toContain('revoked-api-key');
    expect(dynamo.commandCalls(GetCommand)).toHaveLength(3);
  });

  it('caches a partner’s standing for 25 s at most, so a suspension is seen within 30 s', async () => {
    vi.useFakeTimers({ now: Date.parse('2026-11-22T10:00:00Z') });
    table({ key: record });
    const ask = () => handler(authorizerEvent({ Authorization: `Bearer ${issued.key}` }));

    expect((await ask()).policyDocument.Statement[0]).toMatchObject({ Effect: 'Allow' });
    table({ key: record, partner: { ...partner, suspension: { at: '2026-11-22T10:00:01Z', reason: 'x' } } });
    vi.advanceTimersByTime(24_999);
    expect((await ask()).policyDocument.Statement[0]).toMatchObject({ Effect: 'Allow' });
    vi.advanceTimersByTime(1);
    expect((await ask()).context?.problemType).toContain('partner-suspended');
  });

  it('puts only template-safe text in the Deny context, so the 401 body is always valid JSON', async () => {
    const refusals = [
      await handler(authorizerEvent({ Authorization: 'Bearer nope' })),
      await handler(authorizerEvent({ Authorization: 'Basic x' })),
      await (async () => {
        table({ key: { ...record, state: 'revoked', revokedAt: '2026-01-01T00:00:00Z' } });
        return handler(authorizerEvent({ Authorization: `Bearer ${issued.key}` }));
      })(),
    ];

    for (const refusal of refusals) {
      const rendered = renderGatewayResponse('ACCESS_DENIED', {
        requestId: 'r-1',
        authorizer: (refusal.context ?? {}) as Record<string, string>,
      });
      expect(rendered.statusCode).toBe(401);
      expect(JSON.parse(rendered.body)).toMatchObject({
        status: 401,
        detail: refusal.context?.problemDetail,
      });
    }
    expect(templateSafe('say "hi"\\ back\nnow')).toBe("say 'hi'' back now");
  });

  it('logs one line for a refused key at production’s level, with its prefix and why', async () => {
    table({ key: { ...record, state: 'revoked' } });
    const written: string[] = [];
    const write = vi.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    try {
      const linesAt = async (level: 'INFO' | 'WARN') => {
        logger.setLogLevel(level);
        written.length = 0;
        forgetCachedKeys();
        const refusal = await handler(authorizerEvent({ Authorization: `Bearer ${issued.key}` }));
        expect(refusal.policyDocument.Statement[0]).toMatchObject({ Effect: 'Deny' });
        return written.join('').split('\n').filter(Boolean);
      };

      // Support's only record of which key was refused and why: the access log has neither.
      const info = await linesAt('INFO');
      expect(info).toHaveLength(1);
      expect(JSON.parse(info[0] ?? '{}')).toMatchObject({
        level: 'INFO',
        message: 'API key refused',
        keyPrefix: issued.prefix,
        problem: 'revoked-api-key',
      });
      expect(await linesAt('WARN')).toEqual([]);
    } finally {
      write.mockRestore();
      logger.setLogLevel('SILENT');
    }
  });

  it('lets a DynamoDB failure escape, which API Gateway answers with its 503 authorizer-failure problem', async () => {
    dynamo.on(GetCommand).rejects(awsError('ProvisionedThroughputExceededException'));

    const failure = await handler(authorizerEvent({ Authorization: `Bearer ${issued.key}` })).then(
      () => undefined,
      (error: unknown) => error,
    );

    // The DynamoDB error itself, not the "Unauthorized" that asks API Gateway for a 401: any
    // other error is an authorizer failure (AUTHORIZER_FAILURE, as emulator/api-gateway.ts maps it).
    expect(failure).toMatchObject({ name: 'ProvisionedThroughputExceededException' });
    expect((failure as Error).message).not.toBe('Unauthorized');
    const rendered = renderGatewayResponse('AUTHORIZER_FAILURE', { requestId: 'r-503' });
    expect(rendered.statusCode).toBe(503);
    expect(rendered.headers).toEqual({ 'Content-Type': PROBLEM_CONTENT_TYPE, 'Retry-After': '1' });
    expect(JSON.parse(rendered.body)).toEqual({
      type: problemTypeUri('service-unavailable'),
      title: 'Service temporarily unavailable',
      status: 503,
      detail: 'The service could not check your key just now; retry shortly.',
      request_id: 'r-503',
    });
  });
});
