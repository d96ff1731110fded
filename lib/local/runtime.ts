import { existsSync } from 'node:fs';
import { chmod, mkdir, readdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { join, resolve } from 'node:path';
import type { ServiceSecretName } from '../../core/service-secrets';
import { generateServiceSecret } from '../../lambdas/common/service-secrets';

/**
 * Local state lives in one git-ignored folder (`.local/` unless PARTNER_API_LOCAL_DIR says
 * otherwise): the service secrets, a runtime file per running server (which the CLI reads), the
 * mail outbox and, with --persist, DynamoDB Local's data.
 */
export function localDirectory(): string {
  return resolve(process.env.PARTNER_API_LOCAL_DIR ?? '.local');
}

export interface LocalRuntime {
  readonly pid: number;
  readonly apiBaseUrl: string;
  readonly activationBaseUrl: string;
  readonly dynamoDbEndpoint: string;
  readonly tableName: string;
  readonly secretsFile: string;
  readonly outboxDirectory: string;
  /** The local AWS endpoint (DynamoDB and Secrets Manager) and the secrets' local ARNs. */
  readonly awsEndpoint: string;
  readonly secretArns: Readonly<Record<ServiceSecretName, string>>;
  /** What calls to the local AWS endpoint are signed with: this file is readable by its owner only. */
  readonly secretAccessKey: string;
  readonly startedAt: string;
}

/**
 * Each running server keeps its own file, `runtime/<pid>.json`, and removes only its own on stop:
 * servers started and stopped in the same folder never hide one another from the CLI.
 */
const runtimeFolder = (directory: string) => join(directory, 'runtime');
const runtimeFile = (directory: string, pid: number) => join(runtimeFolder(directory), `${pid}.json`);
const RUNTIME_FILE_NAME = /^[1-9][0-9]*\.json$/;

/**
 * Writes the server's runtime file (readable by its owner only: it holds what calls to the local
 * AWS endpoint are signed with), whole or not at all, and removes the files of servers that died
 * without removing theirs.
 */
export async function writeRuntime(directory: string, runtime: LocalRuntime): Promise<void> {
  const folder = runtimeFolder(directory);
  await mkdir(folder, { recursive: true, mode: 0o700 });
  await chmod(folder, 0o700);
  for (const name of await runtimeFileNames(directory)) {
    const pid = Number.parseInt(name, 10);
    if (pid !== runtime.pid && !isProcessAlive(pid)) await rm(join(folder, name), { force: true });
  }
  const file = runtimeFile(directory, runtime.pid);
  const written = `${file}.tmp`;
  await writeFile(written, `${JSON.stringify(runtime, null, 2)}\n`, { mode: 0o600 });
  await rename(written, file);
}

export async function removeRuntime(directory: string, pid: number): Promise<void> {
  await rm(runtimeFile(directory, pid), { force: true });
}

async function runtimeFileNames(directory: string): Promise<string[]> {
  try {
    return (await readdir(runtimeFolder(directory))).filter((name) => RUNTIME_FILE_NAME.test(name));
  } catch {
    return [];
  }
}

async function readRuntimeFile(directory: string, pid: number): Promise<LocalRuntime | undefined> {
  try {
    const runtime = JSON.parse(await readFile(runtimeFile(directory, pid), 'utf8')) as LocalRuntime;
    return runtime.pid === pid ? runtime : undefined;
  } catch {
    return undefined;
  }
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
 * The servers running from this folder, the newest first: those whose process is alive and whose
 * port answers. The file of a server that died without removing it is removed here too; one whose
 * process id now belongs to another program is passed over (its port does not answer).
 */
export async function liveRuntimes(directory: string): Promise<LocalRuntime[]> {
  const pids = (await runtimeFileNames(directory)).map((name) => Number.parseInt(name, 10));
  await Promise.all(
    pids
      .filter((pid) => !isProcessAlive(pid))
      .map((pid) => rm(runtimeFile(directory, pid), { force: true }).catch(() => undefined)),
  );
  const runtimes = await Promise.all(
    pids.filter(isProcessAlive).map(async (pid) => {
      const runtime = await readRuntimeFile(directory, pid);
      return runtime && (await answers(runtime.apiBaseUrl)) ? runtime : undefined;
    }),
  );
  return runtimes
    .filter((runtime) => runtime !== undefined)
    .sort((a, b) => b.startedAt.localeCompare(a.startedAt) || b.pid - a.pid);
}

/** The runtime of the server with this process id, or else of the newest server running from the folder. */
export async function readRuntime(directory: string, pid?: number): Promise<LocalRuntime | undefined> {
  if (pid !== undefined) return readRuntimeFile(directory, pid);
  return (await liveRuntimes(directory))[0];
}

function isProcessAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * The local secret file, created with a fresh random master key on first use: the local AWS
 * endpoint serves it as the value of every service secret (each key derives from it for its own
 * purpose, as from its own secret in AWS).
 */
export async function ensureSecretsFile(directory: string): Promise<string> {
  await mkdir(directory, { recursive: true });
  const file = join(directory, 'secrets.json');
  if (!existsSync(file))
    await writeFile(file, `${JSON.stringify(generateServiceSecret(), null, 2)}\n`, { mode: 0o600 });
  await chmod(file, 0o600);
  return file;
}
