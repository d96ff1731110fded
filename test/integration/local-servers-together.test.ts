import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoDbLocal } from '../../emulator/dynamodb-local';
import { freePort, startDynamoDbLocal } from '../../emulator/dynamodb-local';
import { SAMPLE_HOSTS } from '../../operations/sample-data';
import type { ServerProcess } from '../support/processes';
import { startServerProcess } from '../support/processes';

/**
 * Several `npm start` launched at once on one DynamoDB (Local) and one folder, as they stand in for
 * several Lambda instances: every one of them seeds the same demo data at the same moment.
 */
let dynamoDb: DynamoDbLocal | undefined;
let folder = '';
const servers: ServerProcess[] = [];

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'partner-api-together-'));
  dynamoDb = await startDynamoDbLocal({ port: await freePort() });
}, 120_000);

afterAll(async () => {
  for (const server of servers) await server.stop();
  await dynamoDb?.stop();
  if (folder) await rm(folder, { recursive: true, force: true });
});

/** The demo-pms key a server printed in its banner. */
const demoKeyOf = (server: ServerProcess) =>
  /Demo partner "demo-pms" .*\n {2}(svc_\S+)/.exec(server.output())?.[1] ?? '';

/** The activation link a server printed in its banner. */
const activationLinkOf = (server: ServerProcess) =>
  /\n {2}(http\S+\/activate\?token=\S+)/.exec(server.output())?.[1] ?? '';

describe('three local servers started at once on one DynamoDB', () => {
  it('all start, seed the demo data once, and answer alike with the one demo key left in force', async () => {
    const starts = await Promise.allSettled(
      [0, 1, 2].map(async () => {
        const server = await startServerProcess(
          { DYNAMODB_ENDPOINT: dynamoDb?.endpoint ?? '' },
          { sharedDirectory: folder, startupTimeoutMs: 240_000, fromSources: true },
        );
        servers.push(server);
        return server;
      }),
    );

    expect(starts.flatMap((start) => (start.status === 'rejected' ? [String(start.reason)] : []))).toEqual(
      [],
    );
    const [first] = servers;
    const partners = ((await first?.admin('partners', 'list'))?.partners ?? []) as { slug: string }[];
    expect(partners.filter((partner) => partner.slug === 'demo-pms')).toHaveLength(1);
    expect(partners.filter((partner) => partner.slug === 'metrics-pms')).toHaveLength(1);
    // Each start revokes the demo keys in force before it: exactly one printed key is left, on every server.
    const keys = servers.map(demoKeyOf);
    const statuses = await Promise.all(
      servers.flatMap((server) =>
        keys.map(async (key) => {
          const response = await fetch(`${server.runtime.apiBaseUrl}/usage`, {
            headers: { authorization: `Bearer ${key}` },
          });
          return { server: server.runtime.pid, key, status: response.status, body: await response.json() };
        }),
      ),
    );
    expect(statuses.filter((answer) => answer.status !== 200 && answer.status !== 401)).toEqual([]);
    const inForce = keys.filter((key) =>
      statuses.some((answer) => answer.key === key && answer.status === 200),
    );
    expect(inForce).toHaveLength(1);
    const usage = statuses.filter((answer) => answer.status === 200);
    expect(usage).toHaveLength(servers.length);
    for (const answer of usage) expect(answer.body.hosts).toHaveLength(SAMPLE_HOSTS.length);
    // A burst across the servers, as across Lambda instances: within the rate limit, none is refused.
    // A 503 (DynamoDB Local slower than a function's 2.5-s wait on a busy machine) is retried after
    // its Retry-After, as the packed client does; a 429 or any other answer is a failure.
    const burst = await Promise.all(
      Array.from({ length: 96 }, async (_, index) => {
        const target = servers[index % servers.length];
        for (let attempt = 1; ; attempt++) {
          const response = await fetch(`${target?.runtime.apiBaseUrl}/properties`, {
            headers: { authorization: `Bearer ${inForce[0]}` },
          });
          const body = await response.text();
          if (response.status !== 503 || attempt === 3) return response.status === 200 ? 200 : body;
          await new Promise((resolve) =>
            setTimeout(resolve, Number(response.headers.get('retry-after')) * 1_000),
          );
        }
      }),
    );
    expect(burst.filter((answer) => answer !== 200)).toEqual([]);
    // Each server's link is signed with the partner's one secret, sealed with the folder's one key.
    for (const server of servers)
      expect((await fetch(activationLinkOf(server), { redirect: 'manual' })).status).toBe(303);
  }, 300_000);
});
