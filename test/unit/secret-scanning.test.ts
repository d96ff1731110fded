import { createHash, generateKeyPairSync } from 'node:crypto';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  secretScanningReportSchema,
  signatureIsValid,
  signReport,
  tokenHash,
} from '../../core/contract/secret-scanning';
import {
  API_KEY_LENGTH,
  API_KEY_SCANNER_PATTERN,
  generateApiKey,
  parseApiKey,
} from '../../core/domain/api-key';
import { keyIdentifierOf } from '../../emulator/secret-scanning-keys';

function pair(namedCurve = 'P-256') {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve });
  return {
    publicPem: publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

describe('report signatures (ECDSA P-256, SHA-256, base64 DER, as GitHub signs)', () => {
  const signer = pair();
  const body =
    '[{"token":"svc_x","type":"partner_api_key","url":"https://github.com/a/b","source":"content"}]';

  it('accepts the signature of the body by the published key', () => {
    expect(signatureIsValid(Buffer.from(body), signReport(body, signer.privatePem), signer.publicPem)).toBe(
      true,
    );
  });

  it('refuses a changed body, another key, a signature that is not DER, and a key that is not EC', () => {
    const signature = signReport(body, signer.privatePem);
    const { publicKey: rsa } = generateKeyPairSync('rsa', { modulusLength: 2048 });
    expect(
      signatureIsValid(Buffer.from(body.replace('content', 'commit')), signature, signer.publicPem),
    ).toBe(false);
    expect(signatureIsValid(Buffer.from(body), signature, pair().publicPem)).toBe(false);
    expect(signatureIsValid(Buffer.from(body), 'bm90IGEgc2lnbmF0dXJl', signer.publicPem)).toBe(false);
    expect(signatureIsValid(Buffer.from(body), signature, 'not a key')).toBe(false);
    expect(
      signatureIsValid(Buffer.from(body), signature, rsa.export({ type: 'spki', format: 'pem' }).toString()),
    ).toBe(false);
  });

  it('names a key as GitHub does: the SHA-256 of its DER, in hex', () => {
    const der = Buffer.from(signer.publicPem.replace(/-----[^-]+-----|\s/g, ''), 'base64');
    expect(keyIdentifierOf(signer.publicPem)).toBe(createHash('sha256').update(der).digest('hex'));
  });
});

describe('what a report holds', () => {
  it('takes 1 to 1,000 entries of token and type, with url and source', () => {
    const entry = { token: 't', type: 'x', url: 'https://example.com', source: 'content' };
    expect(secretScanningReportSchema().safeParse([entry]).success).toBe(true);
    expect(secretScanningReportSchema().safeParse(Array(1_000).fill(entry)).success).toBe(true);
    expect(secretScanningReportSchema().safeParse(Array(1_001).fill(entry)).success).toBe(false);
    expect(secretScanningReportSchema().safeParse([]).success).toBe(false);
    expect(secretScanningReportSchema().safeParse([{ type: 'x' }]).success).toBe(false);
    expect(secretScanningReportSchema().safeParse({ token: 't', type: 'x' }).success).toBe(false);
  });

  it('names a token in its feedback by the lowercase hex SHA-256 of the token', () => {
    expect(tokenHash('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
  });
});

describe('the regular expression registered with secret scanners', () => {
  const pattern = new RegExp(API_KEY_SCANNER_PATTERN, 'g');

  it('finds every key we make, whole, in the text around it', () => {
    for (let i = 0; i < 200; i += 1) {
      const { key } = generateApiKey();
      const found = [...`PARTNER_API_KEY="${key}"\nother=1`.matchAll(pattern)].map((match) => match[0]);
      expect(found).toEqual([key]);
      expect(key).toHaveLength(API_KEY_LENGTH);
    }
  });

  it('does not cut a key out of a longer word, and a look-alike fails the checksum before any read', () => {
    const { key } = generateApiKey();
    expect(`x${key}`.match(pattern)).toBeNull();
    expect(`${key}z`.match(pattern)).toBeNull();
    const lookAlike = `svc_${'a'.repeat(API_KEY_LENGTH - 4)}`;
    expect(lookAlike.match(pattern)?.[0]).toBe(lookAlike);
    expect(parseApiKey(lookAlike)).toEqual({ ok: false, reason: 'checksum' });
  });
});

describe('the published keys, as an instance of the function holds them', () => {
  const a = pair();
  const b = pair();
  const doc = (...keys: { publicPem: string }[]) => ({
    public_keys: keys.map((key, index) => ({
      key_identifier: `id-${index}-${key === a ? 'a' : 'b'}`,
      key: key.publicPem,
    })),
  });
  const body = JSON.stringify([
    { token: 'not-a-key-of-ours', type: 'partner_api_key', url: 'https://x', source: 'content' },
  ]);
  const post = (identifier: string, privatePem: string) =>
    handler({
      httpMethod: 'POST',
      body,
      isBase64Encoded: false,
      headers: {
        'Github-Public-Key-Identifier': identifier,
        'Github-Public-Key-Signature': signReport(body, privatePem),
      },
      requestContext: { requestId: 'unit' },
    } as unknown as APIGatewayProxyEvent);

  let handler: (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>;
  let published: unknown;
  const fetched: string[] = [];

  beforeAll(async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(Date.parse('2026-11-28T12:00:00Z'));
    process.env.SECRET_SCANNING_KEYS_URL = 'https://keys.example/secret_scanning';
    vi.stubGlobal('fetch', async (url: string) => {
      fetched.push(url);
      return new Response(JSON.stringify(published), { status: 200 });
    });
    ({ handler } = await import('../../lambdas/pages/github-secret-scanning'));
  });
  afterAll(() => {
    vi.unstubAllGlobals();
    vi.useRealTimers();
  });

  it('trusts a key until the list it read is 10 minutes old, then only what the list says; an unknown identifier costs one read a minute', async () => {
    published = doc(a);
    expect((await post('id-0-a', a.privatePem)).statusCode).toBe(200);
    expect(fetched).toHaveLength(1);

    // GitHub withdraws a and publishes b: a still counts on this instance for a while…
    published = { public_keys: [{ key_identifier: 'id-0-b', key: b.publicPem }] };
    vi.advanceTimersByTime(5 * 60_000);
    expect((await post('id-0-a', a.privatePem)).statusCode).toBe(200);
    // …and b's first report makes the instance read the list again.
    expect((await post('id-0-b', b.privatePem)).statusCode).toBe(200);
    expect(fetched).toHaveLength(2);
    expect((await post('id-0-a', a.privatePem)).statusCode).toBe(401);

    // Made-up identifiers: one read in the minute, however many come.
    vi.advanceTimersByTime(60_000);
    for (let i = 0; i < 20; i += 1) expect((await post(`made-up-${i}`, a.privatePem)).statusCode).toBe(401);
    expect(fetched).toHaveLength(3);

    // With no unknown identifier at all, a list 10 minutes old is read again.
    published = doc(a);
    vi.advanceTimersByTime(10 * 60_000);
    expect((await post('id-0-a', a.privatePem)).statusCode).toBe(200);
    expect(fetched).toHaveLength(4);
  });
});
