import { readFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';

/**
 * Secrets shared by the pages and the operator CLI: the key that seals partners' signing
 * secrets and the key that signs host sessions. In AWS they are one Secrets Manager secret
 * (its ARN in SERVICE_SECRETS_ARN); locally a git-ignored JSON file (SERVICE_SECRETS_FILE).
 */
export interface ServiceSecrets {
  readonly sealingKey: Buffer;
  readonly sessionKey: Buffer;
}

interface StoredSecrets {
  sealingKey: string;
  sessionKey: string;
}

/** Fresh secrets, base64url-encoded, as stored. */
export function generateServiceSecrets(): StoredSecrets {
  return { sealingKey: randomBytes(32).toString('base64url'), sessionKey: randomBytes(32).toString('base64url') };
}

export function parseServiceSecrets(json: string): ServiceSecrets {
  const stored = JSON.parse(json) as Partial<StoredSecrets>;
  const decode = (name: keyof StoredSecrets) => {
    const value = stored[name];
    const bytes = typeof value === 'string' ? Buffer.from(value, 'base64url') : Buffer.alloc(0);
    if (bytes.length < 32) throw new Error(`Service secret "${name}" is missing or shorter than 32 bytes.`);
    return bytes;
  };
  return { sealingKey: decode('sealingKey'), sessionKey: decode('sessionKey') };
}

let cached: Promise<ServiceSecrets> | undefined;

/** Loads the secrets once per process. */
export function loadServiceSecrets(): Promise<ServiceSecrets> {
  cached ??= (async () => {
    const file = process.env.SERVICE_SECRETS_FILE;
    if (file) return parseServiceSecrets(await readFile(file, 'utf8'));
    const arn = process.env.SERVICE_SECRETS_ARN;
    if (!arn) throw new Error('Neither SERVICE_SECRETS_ARN nor SERVICE_SECRETS_FILE is set.');
    const { SecretsManagerClient, GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
    const { SecretString } = await new SecretsManagerClient({}).send(new GetSecretValueCommand({ SecretId: arn }));
    if (!SecretString) throw new Error('The service secret has no string value.');
    return parseServiceSecrets(SecretString);
  })();
  cached.catch(() => {
    cached = undefined;
  });
  return cached;
}
