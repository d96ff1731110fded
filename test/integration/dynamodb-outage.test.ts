import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { DynamoDbLocal } from '../../emulator/dynamodb-local';
import { freePort, startDynamoDbLocal } from '../../emulator/dynamodb-local';
import type { ServerProcess } from '../support/processes';
import { startServerProcess } from '../support/processes';

let dynamoDb: DynamoDbLocal | undefined;
let server: ServerProcess | undefined;
let dataDirectory = '';

afterAll(async () => {
  await server?.stop();
  await dynamoDb?.stop();
  if (dataDirectory) await rm(dataDirectory, { recursive: true, force: true });
});

async function activeSeats(): Promise<number> {
  return Number((await server?.admin('partners', 'show', 'demo-pms'))?.active_seats);
}

function postForm(url: string, cookie: string, fields: [string, string][]) {
  return fetch(url, {
    method: 'POST',
    redirect: 'manual',
    headers: { cookie, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
}

describe('DynamoDB Local dies in the middle of a provisioning', () => {
  it('shows the host a try-again page, and after a restart the retry provisions exactly once', async () => {
    dataDirectory = await mkdtemp(join(tmpdir(), 'outage-dynamodb-'));
    const port = await freePort();
    dynamoDb = await startDynamoDbLocal({ port, dataDirectory });
    // Telemetry off; the data where it was asked for (not relative to the package's directory).
    expect(dynamoDb.process.spawnargs).toContain('-disableTelemetry');
    expect(dynamoDb.process.spawnargs).toEqual(expect.arrayContaining(['-dbPath', dataDirectory]));
    server = await startServerProcess({ DYNAMODB_ENDPOINT: dynamoDb.endpoint });
    const link = await server.admin(
      'links',
      'create',
      '--partner',
      'demo-pms',
      '--email',
      'outage@example.com',
      '--name',
      'Outage Cottage',
      '--pms-hotel-id',
      'OUTAGE-1',
      '--products',
      'assistant,checkin',
    );
    const activated = await fetch(String(link.url), { redirect: 'manual' });
    const cookie = (activated.headers.get('set-cookie') ?? '').split(';')[0] ?? '';
    const marketplace = new URL('marketplace', String(link.url)).toString();
    const csrf =
      /name="csrf" value="([^"]+)"/.exec(
        await (await fetch(marketplace, { headers: { cookie } })).text(),
      )?.[1] ?? '';
    const fields: [string, string][] = [
      ['csrf', csrf],
      ['product', 'assistant'],
      ['product', 'checkin'],
    ];
    const seatsBefore = await activeSeats();

    // Freeze DynamoDB so the POST is in flight against it, then kill it.
    dynamoDb.process.kill('SIGSTOP');
    const during = postForm(marketplace, cookie, fields);
    await new Promise((resolve) => setTimeout(resolve, 300));
    dynamoDb.process.kill('SIGKILL');
    const failed = await during;

    expect(failed.status).toBe(503);
    expect(failed.headers.get('content-type')).toContain('text/html');
    expect(failed.headers.get('retry-after')).toBe('5');
    expect(await failed.text()).toContain('Please try again in a moment');

    dynamoDb = await startDynamoDbLocal({ port, dataDirectory });
    expect(await activeSeats()).toBe(seatsBefore);

    const retried = await postForm(marketplace, cookie, fields);
    const again = await postForm(marketplace, cookie, fields);

    expect(retried.status).toBe(303);
    expect(retried.headers.get('location')).toBe('onboarding');
    expect(again.status).toBe(303);
    expect(await activeSeats()).toBe(seatsBefore + 2);
    // Two DynamoDB Local starts and a server's seeding: over a minute on a busy two-core machine.
  }, 180_000);
});
