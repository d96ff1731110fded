import type { ChildProcess } from 'node:child_process';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Scope } from '../../core/domain/scopes';
import { SERVICE_SECRET_NAMES, secretArnVariable } from '../../core/service-secrets';
import { freePort } from '../../emulator/dynamodb-local';
import type { LocalRuntime } from '../../emulator/runtime';
import { readRuntime } from '../../emulator/runtime';
import { localEnvironment } from '../../emulator/service';
import { useServiceEnvironment } from '../../lambdas/common/config';
import { childEnvironment } from './child';

export interface ServiceProcess {
  readonly runtime: LocalRuntime;
  readonly child: ChildProcess;
  /** Resident set size of the server process, in MiB (from /proc). */
  rssMiB(): Promise<number>;
  stop(): Promise<void>;
}

/** Runs `npm start` as its own process (so load generator and server do not share a thread). */
export async function startServiceProcess(): Promise<ServiceProcess> {
  const directory = await mkdtemp(join(tmpdir(), 'bench-service-'));
  const port = await freePort();
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/start.ts', '--quiet'], {
    env: childEnvironment({ PORT: String(port), PARTNER_API_LOCAL_DIR: directory }),
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  // Generous: on a shared machine under load, bundling and DynamoDB Local can take minutes.
  const deadline = Date.now() + 180_000;
  let runtime: LocalRuntime | undefined;
  while (!runtime) {
    if (child.exitCode !== null) throw new Error(`The local server exited with code ${child.exitCode}`);
    if (Date.now() > deadline) {
      // SIGTERM lets the server stop DynamoDB Local and its workers instead of orphaning them.
      child.kill('SIGTERM');
      throw new Error('The local server did not start within 180 s');
    }
    await new Promise((resolve) => setTimeout(resolve, 200));
    runtime = await readRuntime(directory);
  }
  const started = runtime;
  return {
    runtime: started,
    child,
    async rssMiB() {
      const { readFile } = await import('node:fs/promises');
      const status = await readFile(`/proc/${child.pid}/status`, 'utf8');
      return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0) / 1024;
    },
    async stop() {
      const exited = once(child, 'exit');
      child.kill('SIGINT');
      await exited;
      await rm(directory, { recursive: true, force: true });
    },
  };
}

/**
 * Points this process's data modules at the service's DynamoDB Local, and its secrets at the
 * service's local AWS endpoint (every secret's ARN: the bench calls handlers of every kind).
 */
export function useServiceTable(runtime: LocalRuntime): void {
  useServiceEnvironment({
    ...localEnvironment(runtime),
    ...Object.fromEntries(
      SERVICE_SECRET_NAMES.map((name) => [secretArnVariable(name), runtime.secretArns[name]]),
    ),
  });
}

/** Mints `count` keys for a partner straight into the table; returns the plaintext keys. */
export async function mintKeys(
  partnerId: number,
  count: number,
  scopes: readonly Scope[],
): Promise<string[]> {
  const { TransactWriteCommand } = await import('@aws-sdk/lib-dynamodb');
  const { dynamoDb } = await import('../../lambdas/data/db');
  const { apiKeyCreationItem } = await import('../../lambdas/data/api-keys');
  const { generateApiKey } = await import('../../core/domain/api-key');
  const keys: string[] = [];
  const createdAt = new Date().toISOString();
  for (let start = 0; start < count; start += 25) {
    const batch = Array.from({ length: Math.min(25, count - start) }, () => generateApiKey());
    await dynamoDb().send(
      new TransactWriteCommand({
        TransactItems: batch.map((key) =>
          apiKeyCreationItem({
            prefix: key.prefix,
            partnerId,
            digest: key.digest,
            scopes,
            createdAt,
            sequence: 0,
            state: 'active',
          }),
        ),
      }),
    );
    keys.push(...batch.map((key) => key.key));
  }
  return keys;
}
