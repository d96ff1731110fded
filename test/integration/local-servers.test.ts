import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoDbLocal } from '../../emulator/dynamodb-local';
import { freePort, startDynamoDbLocal } from '../../emulator/dynamodb-local';
import type { ServerProcess } from '../support/processes';
import { startServerProcess } from '../support/processes';

/**
 * Several `npm start` in one checkout (one `.local` folder), started and stopped in any order:
 * the CLI, a process of its own as `npm run admin` runs it, acts on the newest server still
 * running, and says so plainly when none is.
 */
let dynamoDb: DynamoDbLocal | undefined;
let folder = '';
const servers: ServerProcess[] = [];

/** `npm run admin -- ...` in the shared folder: exit code and both streams. */
function cli(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'bin/admin.ts', ...args],
      { env: { ...process.env, PARTNER_API_LOCAL_DIR: folder } },
      (error, stdout, stderr) => {
        const code = error ? Number((error as { code?: unknown }).code ?? 1) : 0;
        resolve({ code, stdout: stdout.trim(), stderr: stderr.trim() });
      },
    );
  });
}

/** The process id of a process that has ended (nothing runs under it any more, for now). */
async function endedPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await once(child, 'exit');
  return child.pid ?? 0;
}

const runtimeFiles = async () => (await readdir(join(folder, 'runtime'))).sort();

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'partner-api-servers-'));
  dynamoDb = await startDynamoDbLocal({ port: await freePort() });
  // One after another, as three terminals would: the first one writes the folder's secrets.
  for (let index = 0; index < 3; index++)
    servers.push(
      await startServerProcess(
        { DYNAMODB_ENDPOINT: dynamoDb.endpoint },
        { sharedDirectory: folder, fromSources: true },
      ),
    );
}, 300_000);

afterAll(async () => {
  for (const server of servers) await server.stop();
  await dynamoDb?.stop();
  if (folder) await rm(folder, { recursive: true, force: true });
});

describe('the CLI with several local servers in one folder', () => {
  it('acts on the newest of three running servers, and says which', async () => {
    const [, , newest] = servers;
    // A server that died without removing its file, and a file whose process id is alive but
    // is no server (this test's own): both passed over.
    const dead = await endedPid();
    await writeFile(
      join(folder, 'runtime', `${dead}.json`),
      JSON.stringify({ ...newest?.runtime, pid: dead }),
    );
    const unreachable = `http://127.0.0.1:${await freePort()}/partner-api/v1`;
    await writeFile(
      join(folder, 'runtime', `${process.pid}.json`),
      JSON.stringify({
        ...newest?.runtime,
        pid: process.pid,
        apiBaseUrl: unreachable,
        startedAt: new Date().toISOString(),
      }),
    );

    const listed = await cli('partners', 'list', '--json');

    expect(listed.code, listed.stderr).toBe(0);
    expect(JSON.parse(listed.stdout).partners).toContainEqual(expect.objectContaining({ slug: 'demo-pms' }));
    expect(listed.stderr).toContain(
      `3 local servers are running from ${folder}; acting on the newest, ${newest?.runtime.apiBaseUrl} (process ${newest?.runtime.pid}`,
    );
    expect(await runtimeFiles()).not.toContain(`${dead}.json`);
    await rm(join(folder, 'runtime', `${process.pid}.json`));
  });

  it('still works after the first and the last started stopped, on the one left', async () => {
    const [first, middle, last] = servers;
    await first?.stop();
    await last?.stop();

    const link = await cli(
      'links',
      'create',
      '--partner',
      'demo-pms',
      '--email',
      'servers@host.example',
      '--name',
      'Three Servers Inn',
      '--pms-hotel-id',
      'SERVERS-1',
      '--products',
      'assistant',
      '--json',
    );

    expect(link.code, link.stderr).toBe(0);
    expect(JSON.parse(link.stdout).url).toMatch(new RegExp(`^${middle?.runtime.activationBaseUrl}/`));
    expect(link.stderr).not.toContain('local servers are running');
    expect(await runtimeFiles()).toEqual([`${middle?.runtime.pid}.json`]);
  });

  it('says no local server is running, and exits 1, once all have stopped', async () => {
    await servers[1]?.stop();

    const none = await cli('partners', 'list');

    expect(await runtimeFiles()).toEqual([]);
    expect(none).toMatchObject({ code: 1, stdout: '' });
    expect(none.stderr).toBe(
      `Error: No local server is running from ${folder} (no server whose file is in ${join(folder, 'runtime')} is alive and answers). Start one with "npm start" in another terminal, or pass --stage sandbox|production.`,
    );
  });
});
