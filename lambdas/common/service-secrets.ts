import { hkdfSync, randomBytes } from 'node:crypto';

import type { ServiceSecretName } from '../../core/service-secrets';
import { secretArnVariable } from '../../core/service-secrets';
import type { ServiceConfig } from './config';
import { serviceConfig } from './config';

/*
 * The service's keys (core/service-secrets.ts names them). A function finds a secret by the ARN in
 * `<NAME>_SECRET_ARN`, set by the stack for the functions the route table grants it to; `npm start`
 * serves the same API locally (`emulator/aws-endpoint.ts`). Each secret holds
 * `{"masterKey": "<at least 32 bytes, base64url>"}`.
 */

/** A fresh stored secret, as the local server writes it. */
export function generateServiceSecret(): { masterKey: string } {
  return { masterKey: randomBytes(48).toString('base64url') };
}

/** The key of a secret's stored value. Keys of different purposes differ even from one master key. */
function serviceKeyFrom(json: string, name: ServiceSecretName): Buffer {
  const { masterKey } = JSON.parse(json) as { masterKey?: unknown };
  const bytes = typeof masterKey === 'string' ? Buffer.from(masterKey, 'base64url') : Buffer.alloc(0);
  if (bytes.length < 32)
    throw new Error(`The ${name} secret has no "masterKey" of at least 32 bytes (base64url).`);
  return Buffer.from(hkdfSync('sha256', bytes, Buffer.alloc(0), `partner-api/${name}-v1`, 32));
}

let loaded:
  | { readonly config: ServiceConfig; readonly keys: Map<ServiceSecretName, Promise<Buffer>> }
  | undefined;

/** Loads a key once per instance (GetSecretValue on its secret), with the service's settings. */
export function loadServiceKey(name: ServiceSecretName): Promise<Buffer> {
  const config = serviceConfig();
  if (loaded?.config !== config) loaded = { config, keys: new Map() };
  const { keys } = loaded;
  let key = keys.get(name);
  if (!key) {
    key = (async () => {
      const arn = config.secretArns[name];
      if (!arn)
        throw new Error(
          `${secretArnVariable(name)} is not set: this function has no access to the ${name} secret.`,
        );
      // Loaded on first use: most functions never read a secret, and the client weighs on a cold start.
      const { SecretsManagerClient, GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
      const local = config.local?.secretsEndpoint
        ? { endpoint: config.local.secretsEndpoint, region: 'local', credentials: config.local.credentials }
        : {};
      const { SecretString } = await new SecretsManagerClient(local).send(
        new GetSecretValueCommand({ SecretId: arn }),
      );
      if (!SecretString) throw new Error(`The ${name} secret has no string value.`);
      return serviceKeyFrom(SecretString, name);
    })();
    keys.set(name, key);
    key.catch(() => keys.delete(name));
  }
  return key;
}
