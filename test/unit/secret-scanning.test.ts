import { createHash, generateKeyPairSync } from 'node:crypto';
import { describe, expect, it } from 'vitest';
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
    expect(secretScanningReportSchema.safeParse([entry]).success).toBe(true);
    expect(secretScanningReportSchema.safeParse(Array(1_000).fill(entry)).success).toBe(true);
    expect(secretScanningReportSchema.safeParse(Array(1_001).fill(entry)).success).toBe(false);
    expect(secretScanningReportSchema.safeParse([]).success).toBe(false);
    expect(secretScanningReportSchema.safeParse([{ type: 'x' }]).success).toBe(false);
    expect(secretScanningReportSchema.safeParse({ token: 't', type: 'x' }).success).toBe(false);
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
