import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, readFileSync } from 'node:fs';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { adminProcess } from '../support/cli';
import type { ServerProcess } from '../support/processes';
import { startServerProcess } from '../support/processes';

/**
 * `npm start` with its own DynamoDB Local, ended other than by Ctrl-C: the DynamoDB Local a
 * server killed with kill -9 leaves behind is stopped by whoever cleans up after it (the CLI or
 * the next server), and nothing else is; a hang-up stops the server as Ctrl-C does. With
 * --persist, the local state is for its owner only.
 */
let folder = '';
const servers: ServerProcess[] = [];
const others: ChildProcess[] = [];

const isRunning = (pid: number) => existsSync(`/proc/${pid}`) && !isZombie(pid);
function isZombie(pid: number): boolean {
  try {
    return /^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'));
  } catch {
    return false;
  }
}

async function until(condition: () => boolean, what: string, seconds = 20): Promise<void> {
  const deadline = Date.now() + seconds * 1_000;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`Not within ${seconds} s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

const cli = (...args: string[]) => adminProcess(folder, args, 60_000);

/** A server of this folder with its own DynamoDB Local, whose process id is recorded. */
async function startWithOwnDynamoDb(
  args: string[] = [],
): Promise<{ server: ServerProcess; dynamoDbPid: number }> {
  const server = await startServerProcess({}, { sharedDirectory: folder, args, fromSources: true });
  servers.push(server);
  const dynamoDbPid = server.runtime.dynamoDbPid ?? 0;
  expect(await readFile(`/proc/${dynamoDbPid}/cmdline`, 'utf8')).toContain('DynamoDBLocal.jar');
  return { server, dynamoDbPid };
}

async function killHard(server: ServerProcess): Promise<void> {
  const exited = once(server.child, 'exit');
  server.child.kill('SIGKILL');
  await exited;
}

const mode = async (path: string) => ((await stat(path)).mode & 0o777).toString(8);

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'partner-api-lifecycle-'));
});

afterAll(async () => {
  for (const server of servers) await server.stop();
  for (const child of others) child.kill('SIGKILL');
  for (const server of servers) {
    const pid = server.runtime.dynamoDbPid;
    if (pid && isRunning(pid)) process.kill(pid, 'SIGKILL');
  }
  if (folder) await rm(folder, { recursive: true, force: true });
});

describe('a local server killed with kill -9', () => {
  it('leaves DynamoDB Local running, which the CLI stops (and nothing else) when it cleans up', async () => {
    const { server, dynamoDbPid } = await startWithOwnDynamoDb();
    // A dead server's file naming as its DynamoDB Local a process that is not one: left alone.
    const bystander = spawn('sleep', ['600'], { stdio: 'ignore' });
    others.push(bystander);
    const deadPid = await (async () => {
      const child = spawn(process.execPath, ['-e', '0']);
      await once(child, 'exit');
      return child.pid ?? 0;
    })();
    await writeFile(
      join(folder, 'runtime', `${deadPid}.json`),
      JSON.stringify({ ...server.runtime, pid: deadPid, dynamoDbPid: bystander.pid }),
      { mode: 0o600 },
    );

    await killHard(server);
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(isRunning(dynamoDbPid)).toBe(true);
    const none = await cli('partners', 'list');

    expect(none.code).toBe(1);
    expect(none.stderr).toContain(
      `Stopped DynamoDB Local (process ${dynamoDbPid}, ${server.runtime.dynamoDbEndpoint}), left running by local server ${server.runtime.pid}, which ended without stopping it.`,
    );
    await until(() => !isRunning(dynamoDbPid), `DynamoDB Local ${dynamoDbPid} ends`);
    expect(isRunning(bystander.pid ?? 0)).toBe(true);
    expect(await readdir(join(folder, 'runtime'))).toEqual([]);
  }, 120_000);

  it('leaves DynamoDB Local running, which the next npm start stops', async () => {
    const { server, dynamoDbPid } = await startWithOwnDynamoDb();
    await killHard(server);

    const { server: next } = await startWithOwnDynamoDb();

    await until(() => !isRunning(dynamoDbPid), `DynamoDB Local ${dynamoDbPid} ends`);
    expect(next.output()).toContain(`Stopped DynamoDB Local (process ${dynamoDbPid}`);
    expect(await readdir(join(folder, 'runtime'))).toEqual([`${next.runtime.pid}.json`]);
    await next.stop();
  }, 180_000); // two servers, one after the other, each with a DynamoDB Local of its own
});

describe('a local server that gets a hang-up (its terminal closed)', () => {
  it('stops as on Ctrl-C: its DynamoDB Local ends and its runtime file is removed', async () => {
    const { server, dynamoDbPid } = await startWithOwnDynamoDb();
    const exited = once(server.child, 'exit');

    server.child.kill('SIGHUP');

    expect(await exited).toEqual([0, null]);
    await until(() => !isRunning(dynamoDbPid), `DynamoDB Local ${dynamoDbPid} ends`);
    expect(await readdir(join(folder, 'runtime'))).toEqual([]);
  });
});

describe('local state with --persist', () => {
  it("is for its owner only: the folders 0700 (wider ones narrowed), DynamoDB Local's file inside one", async () => {
    await chmod(folder, 0o755);
    await mkdir(join(folder, 'outbox'), { recursive: true });
    await chmod(join(folder, 'outbox'), 0o755);

    const { server } = await startWithOwnDynamoDb(['--persist']);

    expect(await mode(folder)).toBe('700');
    for (const name of ['outbox', 'runtime', 'dynamodb', 'bundles', 'docs'])
      expect([name, await mode(join(folder, name))]).toEqual([name, '700']);
    expect(await readdir(join(folder, 'dynamodb'))).toContain('shared-local-instance.db');
    expect(await mode(join(folder, 'secrets.json'))).toBe('600');
    expect(await mode(join(folder, 'runtime', `${server.runtime.pid}.json`))).toBe('600');
    await server.stop();
  });
});

describe('local state it cannot keep private', () => {
  it('refuses to start when a folder of its state is a symbolic link, naming it', async () => {
    const elsewhere = await mkdtemp(join(tmpdir(), 'partner-api-elsewhere-'));
    const linked = await mkdtemp(join(tmpdir(), 'partner-api-linked-outbox-'));
    await symlink(elsewhere, join(linked, 'outbox'));

    const start = startServerProcess({}, { sharedDirectory: linked, fromSources: true });

    await expect(start).rejects.toThrow(
      `Could not start the local service: ${join(linked, 'outbox')} cannot hold the local state: it is a symbolic link.`,
    );
    expect(await readdir(elsewhere)).toEqual([]);
    await rm(linked, { recursive: true, force: true });
    await rm(elsewhere, { recursive: true, force: true });
  });
});
