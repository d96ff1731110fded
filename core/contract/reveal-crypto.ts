import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';

/**
 * One-time reveal of an API key. The key is encrypted with AES-256-GCM under a random secret
 * that only travels in the reveal URL's fragment; the server stores the ciphertext and never
 * sees the secret, so it cannot decrypt what it stores. The browser decrypts with WebCrypto,
 * which expects the GCM tag appended to the ciphertext, as here.
 */
export interface SealedReveal {
  /** base64url AES key: goes in the URL fragment only. */
  readonly fragmentSecret: string;
  /** base64url SHA-256 of the secret's bytes: stored, to refuse a damaged link before spending it. */
  readonly secretDigest: string;
  readonly iv: string;
  readonly ciphertext: string;
}

export function sealForReveal(plaintext: string): SealedReveal {
  const key = randomBytes(32);
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return {
    fragmentSecret: key.toString('base64url'),
    secretDigest: createHash('sha256').update(key).digest('base64url'),
    iv: iv.toString('base64url'),
    ciphertext: ciphertext.toString('base64url'),
  };
}

/**
 * What the table stores of the digest the page presents: its SHA-256. Reading the table then
 * gives nothing that can be presented, so whoever reads it cannot spend (destroy) a reveal.
 */
export function storedDigestProof(secretDigest: string): string {
  return createHash('sha256').update(secretDigest, 'utf8').digest('base64url');
}

/** Node counterpart of the page's WebCrypto decryption (used by tests and the smoke check). */
export function openReveal(sealed: { fragmentSecret: string; iv: string; ciphertext: string }): string {
  const data = Buffer.from(sealed.ciphertext, 'base64url');
  const decipher = createDecipheriv(
    'aes-256-gcm',
    Buffer.from(sealed.fragmentSecret, 'base64url'),
    Buffer.from(sealed.iv, 'base64url'),
  );
  decipher.setAuthTag(data.subarray(data.length - 16));
  return Buffer.concat([decipher.update(data.subarray(0, data.length - 16)), decipher.final()]).toString(
    'utf8',
  );
}
