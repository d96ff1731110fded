import { hkdfSync, randomBytes } from 'node:crypto';

/**
 * The service's keys, each from its own Secrets Manager secret so that a function reads only the
 * ones it needs: `session` signs host sessions and CSRF tokens; `sealing` seals partners'
 * activation signing secrets (pages that verify links, and the operator CLI that mints them);
 * `cursor` signs the page cursors of `GET /properties` (that function alone).
 * A function finds a secret by the ARN in `<NAME>_SECRET_ARN`, set by the stack for the functions
 * the route table grants it to; `npm start` serves the same API locally (`lib/local/aws-endpoint.ts`).
 * Each secret holds `{"masterKey": "<at least 32 bytes, base64url>"}`.
 */
export type ServiceSecretName = 'session' | 'sealing' | 'cursor';

/** The environment variable that holds a secret's ARN (never its value). */
export const secretArnVariable = (name: ServiceSecretName) => `${name.toUpperCase()}_SECRET_ARN`;

/** A fresh stored secret, as the local server writes it. */
export function generateServiceSecret(): { masterKey: string } {
  return { masterKey: randomBytes(48).toString('base64url') };
}

/** The key of a secret's stored value. Keys of different purposes differ even from one master key. */
export function serviceKeyFrom(json: string, name: ServiceSecretName): Buffer {
  const { masterKey } = JSON.parse(json) as { masterKey?: unknown };
  const bytes = typeof masterKey === 'string' ? Buffer.from(masterKey, 'base64url') : Buffer.alloc(0);
  if (bytes.length < 32)
    throw new Error(`The ${name} secret has no "masterKey" of at least 32 bytes (base64url).`);
  return Buffer.from(hkdfSync('sha256', bytes, Buffer.alloc(0), `partner-api/${name}-v1`, 32));
}

const loaded = new Map<ServiceSecretName, Promise<Buffer>>();

/** Loads a key once per instance (GetSecretValue on its secret). */
export function loadServiceKey(name: ServiceSecretName): Promise<Buffer> {
  let key = loaded.get(name);
  if (!key) {
    key = (async () => {
      const variable = secretArnVariable(name);
      const arn = process.env[variable];
      if (!arn) throw new Error(`${variable} is not set: this function has no access to the ${name} secret.`);
      const { SecretsManagerClient, GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
      const { SecretString } = await new SecretsManagerClient({}).send(
        new GetSecretValueCommand({ SecretId: arn }),
      );
      if (!SecretString) throw new Error(`The ${name} secret has no string value.`);
      return serviceKeyFrom(SecretString, name);
    })();
    loaded.set(name, key);
    key.catch(() => loaded.delete(name));
  }
  return key;
}
