import { GetSecretValueCommand, SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import {
  DeleteCommand,
  DynamoDBDocumentClient,
  GetCommand,
  PutCommand,
  QueryCommand,
  TransactWriteCommand,
  UpdateCommand,
} from '@aws-sdk/lib-dynamodb';
import { mockClient } from 'aws-sdk-client-mock';
import { beforeEach, describe, expect, it } from 'vitest';
import { mintActivationToken } from '../../core/domain/activation-token';
import { DEFAULT_CATALOG } from '../../core/domain/catalog';
import { generateServiceSecret, loadServiceKey } from '../../lambdas/common/service-secrets';
import { handler as activate } from '../../lambdas/pages/activate';
import { forgetCachedLookups } from '../../lambdas/pages/activation-lookups';
import { csrfToken, newSession, sessionCookie } from '../../lambdas/pages/host-session';
import { handler as marketplace } from '../../lambdas/pages/marketplace';
import { CATALOGUES } from '../../lambdas/pages/messages';
import { handler as reveal } from '../../lambdas/pages/reveal';
import { awsError, lambdaContext, proxyEvent } from '../support/events';

const dynamo = mockClient(DynamoDBDocumentClient);
// The pages read their session key from Secrets Manager, as in AWS.
mockClient(SecretsManagerClient)
  .on(GetSecretValueCommand)
  .resolves({ SecretString: JSON.stringify(generateServiceSecret()) });
const partner = {
  id: 7,
  slug: 'acme',
  name: 'Acme PMS',
  contactEmail: 'a@acme.example',
  products: ['assistant', 'upsells'],
  scopes: ['metrics:read', 'revenue:read'],
  createdAt: '2026-01-01T00:00:00Z',
};

function cancelled(...codes: string[]): Error {
  return Object.assign(new Error('Transaction cancelled'), {
    name: 'TransactionCanceledException',
    CancellationReasons: codes.map((Code) => ({ Code })),
    $metadata: {},
  });
}

async function provisioningPost() {
  const sessionKey = await loadServiceKey('session');
  const { claims } = mintActivationToken(
    {
      contact_email: 'host@example.com',
      contact_name: 'Casa',
      pms_hotel_id: 'P-1',
      requested_product_ids: ['assistant'],
    },
    Buffer.alloc(32, 1),
    Date.now(),
  );
  const session = newSession(partner.id, partner.slug, claims, Date.now());
  const cookie = sessionCookie(session, sessionKey, false, Date.now()).split(';')[0] ?? '';
  return proxyEvent({
    httpMethod: 'POST',
    path: '/partner/acme/marketplace',
    pathParameters: { slug: 'acme' },
    headers: { Cookie: cookie, 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ csrf: csrfToken(session, sessionKey), product: 'assistant' }).toString(),
  });
}

beforeEach(() => {
  forgetCachedLookups();
  dynamo.reset();
  dynamo.on(GetCommand).resolves({});
  dynamo
    .on(GetCommand, { Key: { PK: 'PARTNERSLUG#acme', SK: 'PARTNERSLUG' } })
    .resolves({ Item: { partnerId: 7 } });
  dynamo.on(GetCommand, { Key: { PK: 'PARTNER#7', SK: 'PARTNER' } }).resolves({ Item: partner });
  dynamo.on(QueryCommand).resolves({ Items: DEFAULT_CATALOG.map((product) => ({ ...product })) });
  dynamo.on(UpdateCommand).resolves({ Attributes: { lastId: 41 } });
});

/** Only the transaction may write; anything else would be a half-write. */
function expectNothingWrittenOutsideTheTransaction() {
  expect(dynamo.commandCalls(PutCommand)).toHaveLength(0);
  expect(dynamo.commandCalls(DeleteCommand)).toHaveLength(0);
  for (const call of dynamo.commandCalls(UpdateCommand))
    expect(String(call.args[0].input.Key?.PK)).toMatch(/^COUNTER#/);
}

describe('pages under DynamoDB faults', () => {
  it('retries a provisioning transaction that keeps conflicting, then shows a try-again page', async () => {
    dynamo.on(TransactWriteCommand).rejects(cancelled('None', 'TransactionConflict', 'None'));

    const result = await marketplace(await provisioningPost(), lambdaContext);

    expect(result.statusCode).toBe(503);
    expect(result.headers?.['Content-Type']).toContain('text/html');
    expect(result.body).toContain('Please try again in a moment');
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(4);
    expectNothingWrittenOutsideTheTransaction();
  });

  it('provisions after a transient conflict clears', async () => {
    dynamo.on(TransactWriteCommand).rejectsOnce(cancelled('TransactionConflict')).resolves({});

    const result = await marketplace(await provisioningPost(), lambdaContext);

    expect(result.statusCode).toBe(303);
    expect(result.headers?.Location).toBe('onboarding');
    expect(dynamo.commandCalls(TransactWriteCommand)).toHaveLength(2);
  });

  it.each([
    [
      'throttling of the transaction',
      () => dynamo.on(TransactWriteCommand).rejects(awsError('ProvisionedThroughputExceededException')),
    ],
    [
      'a timeout reading the partner',
      () =>
        dynamo.on(GetCommand, { Key: { PK: 'PARTNER#7', SK: 'PARTNER' } }).rejects(awsError('TimeoutError')),
    ],
    [
      'a refused connection',
      () =>
        dynamo
          .on(QueryCommand)
          .rejects(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' })),
    ],
  ])('shows a try-again page (503, Retry-After) on %s, writing nothing', async (_, fault) => {
    fault();

    const result = await marketplace(await provisioningPost(), lambdaContext);

    expect(result.statusCode).toBe(503);
    expect(result.headers?.['Retry-After']).toBe('5');
    expect(result.body).toContain('Please try again in a moment');
    expectNothingWrittenOutsideTheTransaction();
  });

  it('shows a plain error page, never internals, on an unexpected failure', async () => {
    dynamo.on(QueryCommand).rejects(new TypeError('secretInternalDetail is not a function'));

    const result = await marketplace(await provisioningPost(), lambdaContext);

    expect(result.statusCode).toBe(500);
    expect(result.headers?.['Content-Type']).toContain('text/html');
    expect(result.body).not.toMatch(/secretInternalDetail|TypeError|at \w+ \(/);
    expect(result.body).toContain('nothing was changed');
  });

  it('answers faults in the host’s language, keeping a language chosen with the switch', async () => {
    dynamo.on(TransactWriteCommand).rejects(awsError('ProvisionedThroughputExceededException'));
    const posted = await provisioningPost();

    const busy = await marketplace(
      { ...posted, headers: { ...posted.headers, 'Accept-Language': 'it-IT,it;q=0.9' } },
      lambdaContext,
    );
    expect(busy.statusCode).toBe(503);
    expect(busy.body).toContain('<html lang="it">');
    expect(busy.body).toContain(CATALOGUES.it.tryAgainTitle);

    forgetCachedLookups();
    dynamo.on(QueryCommand).rejects(new TypeError('secretInternalDetail is not a function'));
    const failed = await marketplace(
      {
        ...posted,
        queryStringParameters: { lang: 'es' },
        multiValueQueryStringParameters: { lang: ['es'] },
      },
      lambdaContext,
    );
    expect(failed.statusCode).toBe(500);
    expect(failed.body).toContain(CATALOGUES.es.faultTitle);
    expect(failed.body).not.toMatch(/secretInternalDetail|TypeError/);
    expect(failed.multiValueHeaders?.['Set-Cookie']).toEqual(['host_lang=es; HttpOnly; SameSite=Lax']);
  });

  it('answers a try-again page in the host’s language just before the function times out', async () => {
    dynamo.on(QueryCommand).callsFake(() => new Promise(() => undefined));
    const posted = await provisioningPost();
    const started = Date.now();

    const result = await marketplace(
      { ...posted, headers: { ...posted.headers, 'Accept-Language': 'fr' } },
      { ...lambdaContext, getRemainingTimeInMillis: () => 300 },
    );

    expect(result.statusCode).toBe(503);
    expect(result.body).toContain(CATALOGUES.fr.tryAgainTitle);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('answers an address with an overlong slug with the 404 page, without a lookup', async () => {
    const result = await activate(
      proxyEvent({
        path: '/partner/x/activate',
        pathParameters: { slug: 'a'.repeat(3_000) },
        query: { token: ['t'] },
      }),
      lambdaContext,
    );

    expect(result.statusCode).toBe(404);
    expect(dynamo.calls()).toHaveLength(0);
  });

  it('shows a try-again page when the reveal lookup is throttled', async () => {
    dynamo.on(GetCommand).rejects(awsError('ThrottlingException'));

    const result = await reveal(
      proxyEvent({ path: '/reveal/x', pathParameters: { revealId: 'AAAAAAAAAAAAAAAAAAAAAAAA' } }),
      lambdaContext,
    );

    expect(result.statusCode).toBe(503);
    expect(result.body).toContain('Please try again in a moment');
  });
});
