import type { ChildProcess } from 'node:child_process';
import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import {
  chmod,
  chown,
  mkdir,
  mkdtemp,
  readdir,
  rm,
  symlink,
  truncate,
  utimes,
  writeFile,
} from 'node:fs/promises';
import type { Server } from 'node:http';
import { createServer } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { DynamoDbLocal } from '../../emulator/dynamodb-local';
import { freePort, startDynamoDbLocal } from '../../emulator/dynamodb-local';
import type { LocalRuntime } from '../../emulator/runtime';
import { adminProcess } from '../support/cli';
import type { ServerProcess } from '../support/processes';
import { startServerProcess } from '../support/processes';

/**
 * What the CLI finds in `<local folder>/runtime/` is not trusted: files planted there (or a folder
 * put in its place) that point at another server, that are not runtimes, or that cannot be read
 * at once are passed over with a notice, and the CLI acts on the real server.
 */
const NOBODY = 65_534;
const isRoot = process.getuid?.() === 0;

let dynamoDb: DynamoDbLocal | undefined;
let server: ServerProcess | undefined;
let folder = '';
let fake: Server | undefined;
let fakeUrl = '';
/** Every request the fake server received: none may reach it. */
const fakeRequests: string[] = [];
const sleepers: ChildProcess[] = [];
const extraFolders: string[] = [];

/** `npm run admin -- ...` with this local folder; killed after 30 s (a read that waits forever). */
const cli = (directory: string, ...args: string[]) => adminProcess(directory, args, 30_000);

/** A process of this user's (or, with `uid`, of that user's) that lives until the suite ends. */
function sleeper(uid?: number): number {
  const child = spawn('sleep', ['600'], { stdio: 'ignore', ...(uid === undefined ? {} : { uid }) });
  sleepers.push(child);
  return child.pid ?? 0;
}

/** A well-formed runtime for `pid` whose every address is the fake server's, dated in the future. */
function fakeRuntime(pid: number): LocalRuntime {
  if (!server) throw new Error('no server');
  return {
    ...server.runtime,
    pid,
    apiBaseUrl: `${fakeUrl}/partner-api/v1`,
    activationBaseUrl: fakeUrl,
    dynamoDbEndpoint: fakeUrl,
    awsEndpoint: fakeUrl,
    startedAt: '2099-01-01T00:00:00.000Z',
  };
}

const runtimePath = (directory: string, name: string) => join(directory, 'runtime', name);
const plant = (name: string, content: string, directory = folder) =>
  writeFile(runtimePath(directory, name), content, { mode: 0o600 });

/** The CLI listed the real server's partners, and the fake server heard nothing. */
async function expectTheRealServer(directory = folder) {
  const listed = await cli(directory, 'partners', 'list', '--json');
  expect(listed.code, listed.stderr).toBe(0);
  expect(JSON.parse(listed.stdout).partners).toContainEqual(expect.objectContaining({ slug: 'demo-pms' }));
  expect(fakeRequests).toEqual([]);
  return listed;
}

beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'partner-api-runtime-files-'));
  dynamoDb = await startDynamoDbLocal({ port: await freePort() });
  server = await startServerProcess(
    { DYNAMODB_ENDPOINT: dynamoDb.endpoint },
    { sharedDirectory: folder, fromSources: true },
  );
  fake = createServer((request, response) => {
    fakeRequests.push(`${request.method} ${request.url}`);
    response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
  });
  fake.listen(0, '127.0.0.1');
  await once(fake, 'listening');
  const address = fake.address();
  fakeUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
}, 300_000);

afterEach(async () => {
  // Only the real server's file stays between tests.
  for (const name of await readdir(join(folder, 'runtime')))
    if (name !== `${server?.runtime.pid}.json`) await rm(runtimePath(folder, name), { force: true });
  fakeRequests.length = 0;
});

afterAll(async () => {
  for (const child of sleepers) child.kill('SIGKILL');
  fake?.close();
  await server?.stop();
  await dynamoDb?.stop();
  for (const directory of [folder, ...extraFolders])
    if (directory) await rm(directory, { recursive: true, force: true });
});

describe('runtime files the CLI does not trust', () => {
  it("passes over (and removes) a file whose process is another user's, however new it says it is", async () => {
    // Root may signal any process: a process of another user's is told by its owner in /proc.
    const foreign = isRoot ? sleeper(NOBODY) : 1;
    await plant(`${foreign}.json`, JSON.stringify(fakeRuntime(foreign)));

    const listed = await expectTheRealServer();

    expect(listed.stderr).not.toContain('local servers are running');
    expect(await readdir(join(folder, 'runtime'))).toEqual([`${server?.runtime.pid}.json`]);
  });

  it('takes the newest server by when its file was written, not by the startedAt the file declares', async () => {
    // A live process of this user's that answers on the fake server's port, whose file says 2099.
    const pid = sleeper();
    await plant(`${pid}.json`, JSON.stringify(fakeRuntime(pid)));
    const anHourAgo = new Date(Date.now() - 3_600_000);
    await utimes(runtimePath(folder, `${pid}.json`), anHourAgo, anHourAgo);

    const listed = await expectTheRealServer();

    expect(listed.stderr).toContain(
      `2 local servers are running from ${folder}; acting on the newest, ${server?.runtime.apiBaseUrl} (process ${server?.runtime.pid}`,
    );
  });

  it("refuses a file that is a symbolic link, another user's, or writable by others, and says why", async () => {
    const [linked, foreign, writable] = [sleeper(), sleeper(), sleeper()];
    const elsewhere = join(folder, 'elsewhere.json');
    await writeFile(elsewhere, JSON.stringify(fakeRuntime(linked)), { mode: 0o600 });
    await symlink(elsewhere, runtimePath(folder, `${linked}.json`));
    await plant(`${writable}.json`, JSON.stringify(fakeRuntime(writable)));
    await chmod(runtimePath(folder, `${writable}.json`), 0o666);
    await plant(`${foreign}.json`, JSON.stringify(fakeRuntime(foreign)));
    // Only root can give a file away; as another user, the file stays this user's and is used.
    if (isRoot) await chown(runtimePath(folder, `${foreign}.json`), NOBODY, NOBODY);
    else await rm(runtimePath(folder, `${foreign}.json`));

    const listed = await expectTheRealServer();

    const notices = listed.stderr.split('\n');
    expect(notices).toContain(`Ignoring ${runtimePath(folder, `${linked}.json`)}: it is a symbolic link.`);
    expect(notices).toContain(
      `Ignoring ${runtimePath(folder, `${writable}.json`)}: other users may write to it (mode 666).`,
    );
    if (isRoot)
      expect(notices).toContain(
        `Ignoring ${runtimePath(folder, `${foreign}.json`)}: it belongs to user ${NOBODY}, not to this user (0).`,
      );
    await rm(elsewhere);
  });

  it('ignores a runtime folder that others may write to, that is a symbolic link, or that is not this user’s', async () => {
    const open = await mkdtemp(join(tmpdir(), 'partner-api-runtime-open-'));
    const linked = await mkdtemp(join(tmpdir(), 'partner-api-runtime-linked-'));
    const given = await mkdtemp(join(tmpdir(), 'partner-api-runtime-given-'));
    extraFolders.push(open, linked, given);
    // A folder on a shared disk: its runtime folder open to all, holding a file that points away.
    const pid = sleeper();
    await mkdir(join(open, 'runtime'));
    await chmod(join(open, 'runtime'), 0o777);
    await plant(`${pid}.json`, JSON.stringify(fakeRuntime(pid)), open);
    // The runtime folder as a link to a folder of this user's that holds a live server.
    await symlink(join(folder, 'runtime'), join(linked, 'runtime'));
    await mkdir(join(given, 'runtime'), { mode: 0o700 });
    await plant(`${pid}.json`, JSON.stringify(fakeRuntime(pid)), given);
    if (isRoot) await chown(join(given, 'runtime'), NOBODY, NOBODY);

    const [fromOpen, fromLinked, fromGiven] = [
      await cli(open, 'partners', 'list'),
      await cli(linked, 'partners', 'list'),
      await cli(given, 'partners', 'list'),
    ];

    expect(fakeRequests).toEqual([]);
    expect(fromOpen.code).toBe(1);
    expect(fromOpen.stderr).toContain(
      `Ignoring the local servers' folder ${join(open, 'runtime')}: other users may write to it (mode 777).\nError: No local server is running from ${open}`,
    );
    expect(fromLinked.code).toBe(1);
    expect(fromLinked.stderr).toContain(
      `Ignoring the local servers' folder ${join(linked, 'runtime')}: it is a symbolic link.\nError: No local server is running from ${linked}`,
    );
    if (isRoot) {
      expect(fromGiven.code).toBe(1);
      expect(fromGiven.stderr).toContain(
        `Ignoring the local servers' folder ${join(given, 'runtime')}: it belongs to user ${NOBODY}, not to this user (0).`,
      );
    }
  });
});

describe('runtime files that are not runtimes', () => {
  it('passes over malformed files with a live process, naming each, and acts on the healthy server', async () => {
    const [badUrl, badDate, notJson, otherPid, wrongShape] = [
      sleeper(),
      sleeper(),
      sleeper(),
      sleeper(),
      sleeper(),
    ];
    await plant(`${badUrl}.json`, JSON.stringify({ ...fakeRuntime(badUrl), apiBaseUrl: 42 }));
    await plant(`${badDate}.json`, JSON.stringify({ ...fakeRuntime(badDate), startedAt: 5 }));
    await plant(`${notJson}.json`, '{"pid": ');
    await plant(`${otherPid}.json`, JSON.stringify(fakeRuntime(badUrl)));
    await plant(`${wrongShape}.json`, '[1, 2, 3]');

    const listed = await expectTheRealServer();

    const notices = listed.stderr.split('\n');
    const file = (pid: number) => runtimePath(folder, `${pid}.json`);
    expect(notices).toContain(`Ignoring ${file(badUrl)}: apiBaseUrl must be a string.`);
    expect(notices).toContain(`Ignoring ${file(badDate)}: startedAt must be a string.`);
    expect(notices).toContain(`Ignoring ${file(notJson)}: it is not JSON.`);
    expect(notices).toContain(`Ignoring ${file(otherPid)}: its pid is ${badUrl}, not ${otherPid}.`);
    expect(notices.filter((line) => line.startsWith(`Ignoring ${file(wrongShape)}: `))).toHaveLength(1);
    expect(listed.stderr).not.toContain('local servers are running');
  });

  it('neither waits on a FIFO nor reads a 300 MB file in the runtime folder', async () => {
    const [fifo, huge] = [sleeper(), sleeper()];
    await promisify(execFile)('mkfifo', ['-m', '600', runtimePath(folder, `${fifo}.json`)]);
    await plant(`${huge}.json`, '');
    await truncate(runtimePath(folder, `${huge}.json`), 300 * 1024 * 1024);

    const listed = await expectTheRealServer();

    const notices = listed.stderr.split('\n');
    expect(notices).toContain(`Ignoring ${runtimePath(folder, `${fifo}.json`)}: it is not a regular file.`);
    expect(notices).toContain(`Ignoring ${runtimePath(folder, `${huge}.json`)}: it is larger than 64 KB.`);
  });
});
