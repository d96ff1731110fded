import type { ChildProcess } from 'node:child_process';
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { once } from 'node:events';
import { copyFile, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../emulator/dynamodb-local';
import type { LocalRuntime } from '../../emulator/runtime';
import { readRuntime } from '../../emulator/runtime';
import { localEnvironment } from '../../emulator/service';
import { revealKey } from './partners';

const QUIET = { POWERTOOLS_LOG_LEVEL: 'SILENT' };

export interface ServerProcess {
  readonly runtime: LocalRuntime;
  readonly child: ChildProcess;
  readonly directory: string;
  /** The server's output so far (the banner holds the demo keys). */
  output(): string;
  /** Resident set size in MiB, from /proc. */
  rssMiB(): Promise<number>;
  /** Heap in MiB of the server thread and of its idle Lambda instances, after a full GC (SIGUSR2). */
  heapAfterGc(): Promise<{ serverMiB: number; instances: number; instancesMiB: number }>;
  /** Runs the operator CLI against this server; returns its parsed --json output. */
  admin(...args: string[]): Promise<Record<string, unknown>>;
  /** A partner approved on this server (`partners approve`, no mail) with its first key revealed. */
  approvedPartner(label: string): Promise<{ slug: string; prefix: string; key: string }>;
  stop(): Promise<void>;
}

/**
 * `npm start` as its own process, in its own folder (or in `sharedDirectory`, which stays when it
 * stops), optionally against a given DynamoDB; with `accessLog`, its output keeps the access log
 * (cold starts and instances per request). A second server on the same DynamoDB needs the first
 * one's service secret (`sameSecretAs`, or the same folder). `args` go to `npm start` (`--persist`).
 * It runs the bundles the suite runs (`PARTNER_API_BUNDLES`: the ones `cdk synth` built, in CI),
 * except `fromSources`: the local runtime's own tests build from the sources, as `npm start` does.
 */
export async function startServerProcess(
  environment: Record<string, string> = {},
  {
    accessLog = false,
    sameSecretAs,
    sharedDirectory,
    args = [],
    startupTimeoutMs = 60_000,
    fromSources = false,
  }: {
    accessLog?: boolean;
    sameSecretAs?: ServerProcess;
    sharedDirectory?: string;
    args?: string[];
    /** How long the start may take (several servers starting at once share the machine). */
    startupTimeoutMs?: number;
    fromSources?: boolean;
  } = {},
): Promise<ServerProcess> {
  const directory = sharedDirectory ?? (await mkdtemp(join(tmpdir(), 'partner-api-server-')));
  if (sameSecretAs) await copyFile(sameSecretAs.runtime.secretsFile, join(directory, 'secrets.json'));
  // Not this process's local service settings: the new server gets its own DynamoDB and secret.
  const inherited = { ...process.env };
  for (const name of Object.keys(
    localEnvironment({
      dynamoDbEndpoint: '',
      awsEndpoint: '',
      secretArns: { session: '', sealing: '', cursor: '' },
      secretAccessKey: '',
    }),
  ))
    delete inherited[name];
  if (fromSources) delete inherited.PARTNER_API_BUNDLES;
  const env = {
    ...inherited,
    ...QUIET,
    PORT: String(await freePort()),
    PARTNER_API_LOCAL_DIR: directory,
    ...environment,
  };
  const child = spawn(
    process.execPath,
    ['--expose-gc', '--import', 'tsx', 'bin/start.ts', ...(accessLog ? [] : ['--quiet']), ...args],
    {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString();
  });
  const deadline = Date.now() + startupTimeoutMs;
  let runtime: LocalRuntime | undefined;
  while (!runtime || !output.includes('Ctrl-C stops')) {
    if (child.exitCode !== null) throw new Error(`The server exited (${child.exitCode}): ${output}`);
    if (Date.now() > deadline)
      throw new Error(`The server did not start within ${startupTimeoutMs / 1000} s: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    runtime = await readRuntime(directory, child.pid ?? 0);
  }
  const started = runtime;
  const run = promisify(execFile);
  const admin = async (...args: string[]) => {
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'bin/admin.ts', ...args, '--json'], {
      env,
    });
    return JSON.parse(stdout) as Record<string, unknown>;
  };
  return {
    runtime: started,
    child,
    directory,
    output: () => output,
    async rssMiB() {
      const status = await readFile(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
    },
    async heapAfterGc() {
      const reports = () => [
        ...output.matchAll(
          /memory: server heap ([\d.]+) MiB; (\d+) idle Lambda instances hold ([\d.]+) MiB/g,
        ),
      ];
      const seen = reports().length;
      child.kill('SIGUSR2');
      const deadline = Date.now() + 30_000;
      while (reports().length === seen) {
        if (Date.now() > deadline) throw new Error('The server did not report its memory within 30 s');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const [, server = '0', instances = '0', instancesMiB = '0'] = reports().at(-1) ?? [];
      return { serverMiB: Number(server), instances: Number(instances), instancesMiB: Number(instancesMiB) };
    },
    admin,
    async approvedPartner(label) {
      const slug = `${label}-${randomBytes(3).toString('hex')}`;
      const approved = await admin(
        'partners',
        'approve',
        '--name',
        `Test ${slug}`,
        '--slug',
        slug,
        '--email',
        `api@${slug}.example`,
        '--products',
        'assistant',
        '--no-mail',
      );
      return { slug, prefix: String(approved.key_prefix), key: await revealKey(String(approved.reveal_url)) };
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = once(child, 'exit');
        child.kill('SIGINT');
        await exited;
      }
      if (sharedDirectory === undefined) await rm(directory, { recursive: true, force: true });
    },
  };
}
