import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Seals small secrets at rest (partners' activation signing secrets) with AES-256-GCM under
 * the service sealing key, which lives in Secrets Manager (or `.local/` in local mode), never
 * in the table, the template or an environment variable.
 */
export function seal(plaintext: Uint8Array, sealingKey: Uint8Array): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', sealingKey, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return [
    'v1',
    iv.toString('base64url'),
    ciphertext.toString('base64url'),
    cipher.getAuthTag().toString('base64url'),
  ].join('.');
}

export function unseal(sealed: string, sealingKey: Uint8Array): Buffer {
  const [version, iv, ciphertext, tag] = sealed.split('.');
  if (version !== 'v1' || !iv || !ciphertext || !tag) throw new Error('Unrecognised sealed secret format');
  try {
    const decipher = createDecipheriv('aes-256-gcm', sealingKey, Buffer.from(iv, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext, 'base64url')), decipher.final()]);
  } catch {
    throw new Error(
      'A sealed secret does not open with the service secret: the data was written with another service secret (was .local/secrets.json replaced, or the table shared?).',
    );
  }
}
