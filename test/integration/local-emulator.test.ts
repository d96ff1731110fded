import { Agent, request } from 'node:http';
import { describe, expect, inject, it } from 'vitest';
import { approvedPartner } from '../support/partners';
import { startServerProcess } from '../support/processes';
import { signedAwsHeaders } from '../support/signed-aws';

/** Names every plain JavaScript object already has: a client may still send them. */
const PROTOTYPE_NAMES = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf'];

describe('the local API Gateway emulation with names objects already have', () => {
  it('treats query parameters named like object properties as unknown parameters (400), never a 5xx', async () => {
    const { key } = await approvedPartner();
    for (const name of PROTOTYPE_NAMES) {
      const response = await fetch(`${inject('apiBaseUrl')}/usage?${encodeURIComponent(name)}=1`, {
        headers: { Authorization: `Bearer ${key}` },
      });
      const body = (await response.json()) as { detail: string };

      expect(response.status, name).toBe(400);
      expect(response.headers.get('content-type')).toBe('application/problem+json');
      expect(body.detail).toContain(`Unknown query parameter "${name}"`);
    }
  });

  it('passes headers named like object properties through to the API and the pages', async () => {
    const { key } = await approvedPartner();
    for (const name of PROTOTYPE_NAMES.filter((candidate) => candidate !== '__proto__')) {
      const api = await fetch(`${inject('apiBaseUrl')}/usage`, {
        headers: { Authorization: `Bearer ${key}`, [name]: 'x' },
      });
      const page = await fetch(`${inject('activationBaseUrl')}/partner/demo-pms/activate?${name}=1`, {
        headers: { [name]: 'x' },
      });

      expect(api.status, name).toBe(200);
      expect(page.status, name).toBeLessThan(500);
      expect(page.headers.get('content-type')).toContain('text/html');
    }
  });

  it('closes the connection after a 413, so the next request on a kept-alive connection is answered', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const send = (method: string, path: string, body?: string) =>
      new Promise<{ status: number; connection?: string }>((resolve, reject) => {
        const outgoing = request(
          new URL(path, inject('activationBaseUrl')),
          { method, agent, headers: { 'Content-Type': 'application/x-www-form-urlencoded' } },
          (response) => {
            response.resume();
            response.on('end', () =>
              resolve({ status: response.statusCode ?? 0, connection: response.headers.connection }),
            );
          },
        );
        outgoing.setTimeout(10_000, () =>
          outgoing.destroy(new Error(`${method} ${path}: no answer in 10 s`)),
        );
        outgoing.on('error', reject);
        outgoing.end(body);
      });
    try {
      const tooLarge = await send(
        'POST',
        '/partner/demo-pms/marketplace',
        `a=${'b'.repeat(2 * 1024 * 1024)}`,
      );
      const next = await send('GET', '/');

      expect(tooLarge).toEqual({ status: 413, connection: 'close' });
      expect(next.status).toBe(200);
    } finally {
      agent.destroy();
    }
  });

  it('logs paths, never query strings: an activation token stays out of the access log', async () => {
    const server = await startServerProcess({}, { accessLog: true, fromSources: true });
    try {
      const token = 'TOKEN-THAT-MUST-NOT-BE-LOGGED';
      await fetch(`${server.runtime.activationBaseUrl}/partner/demo-pms/activate?token=${token}`);
      await fetch(`${server.runtime.apiBaseUrl}/usage?secret=${token}`);
      const tooLarge = await fetch(`${server.runtime.activationBaseUrl}/partner/demo-pms/onboarding`, {
        method: 'POST',
        body: 'x'.repeat(2 * 1024 * 1024),
      }).catch((error: unknown) => error);

      expect(server.output()).toContain('GET /partner/demo-pms/activate 400');
      expect(server.output()).not.toContain(token);
      // A body over 1 MB is answered 413 (or the connection closed while sending it), and logged.
      if (tooLarge instanceof Response) expect(tooLarge.status).toBe(413);
      expect(server.output()).not.toMatch(/POST \S+ failed/);
    } finally {
      await server.stop();
    }
  });

  it('prints a banner whose every address answers: API, reference docs, OpenAPI document, pages root', async () => {
    const server = await startServerProcess({}, { fromSources: true });
    try {
      const banner = server.output();
      const addresses = [
        ...banner.matchAll(
          /(?:API base URL|API reference|OpenAPI document|Pages):\s+(http\S+?)[,)]?(?=\s|$)/g,
        ),
      ].map((match) => match[1] ?? '');

      expect(addresses).toEqual([
        server.runtime.apiBaseUrl,
        `${server.runtime.apiBaseUrl}/docs`,
        `${server.runtime.apiBaseUrl}/openapi.json`,
        `${server.runtime.activationBaseUrl}/`,
      ]);
      for (const address of addresses.slice(1)) {
        const response = await fetch(address);
        expect(response.status, address).toBe(200);
      }
    } finally {
      await server.stop();
    }
  }, 120_000);
});

describe('the local AWS endpoint', () => {
  const getSecret = async (credentials?: { accessKeyId: string; secretAccessKey: string }) => {
    const { SecretsManagerClient, GetSecretValueCommand } = await import('@aws-sdk/client-secrets-manager');
    const environment = inject('localEnvironment');
    const client = new SecretsManagerClient({
      region: 'local',
      endpoint: environment.AWS_ENDPOINT_URL_SECRETS_MANAGER,
      credentials: credentials ?? {
        accessKeyId: 'operator',
        secretAccessKey: environment.AWS_SECRET_ACCESS_KEY ?? '',
      },
      maxAttempts: 1,
    });
    return client.send(new GetSecretValueCommand({ SecretId: inject('secretArns').sealing }));
  };

  it('answers only requests signed with the service’s local credentials: the master key is not anyone’s', async () => {
    const environment = inject('localEnvironment');
    const unsigned = await fetch(environment.AWS_ENDPOINT_URL_SECRETS_MANAGER ?? '', {
      method: 'POST',
      headers: {
        'Content-Type': 'application/x-amz-json-1.1',
        'X-Amz-Target': 'secretsmanager.GetSecretValue',
      },
      body: JSON.stringify({ SecretId: inject('secretArns').sealing }),
    });
    const guessed = await getSecret({ accessKeyId: 'operator', secretAccessKey: 'local' }).then(
      () => 'answered',
      (error: Error) => error.name,
    );
    const signed = await getSecret();

    expect(unsigned.status).toBe(403);
    expect(await unsigned.text()).not.toContain('masterKey');
    expect(guessed).toBe('UnrecognizedClientException');
    expect(signed.SecretString).toContain('masterKey');
  });

  it('checks what a signature covers: a changed body or a signature older than 15 minutes is refused', async () => {
    const environment = inject('localEnvironment');
    const endpoint = new URL(environment.AWS_ENDPOINT_URL_SECRETS_MANAGER ?? '');
    const ask = (name: string) => JSON.stringify({ SecretId: inject('secretArns')[name] });
    const signedRequest = async (body: string, signingDate = new Date()) => ({
      headers: await signedAwsHeaders({
        endpoint,
        secretAccessKey: environment.AWS_SECRET_ACCESS_KEY ?? '',
        service: 'secretsmanager',
        target: 'secretsmanager.GetSecretValue',
        body,
        signingDate,
      }),
    });
    const send = async (headers: Record<string, string>, body: string) =>
      (await fetch(endpoint, { method: 'POST', headers, body })).status;
    const session = ask('session');
    const sealing = ask('sealing');

    const fresh = await signedRequest(session);
    const stale = await signedRequest(session, new Date(Date.now() - 16 * 60_000));

    expect(await send(fresh.headers, session)).toBe(200);
    // The same signature with another body (the other secret asked for): refused.
    expect(await send(fresh.headers, sealing)).toBe(403);
    expect(await send(stale.headers, session)).toBe(403);
  });
});
