import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import type { ServiceSecretName } from '../../core/service-secrets';
import { generateServiceSecret } from '../../lambdas/common/service-secrets';

/**
 * Local state lives in one git-ignored folder (`.local/` unless PARTNER_API_LOCAL_DIR says
 * otherwise): the service secrets, the runtime file the CLI reads, the mail outbox and, with
 * --persist, DynamoDB Local's data.
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

const runtimeFile = (directory: string) => join(directory, 'runtime.json');

export async function writeRuntime(directory: string, runtime: LocalRuntime): Promise<void> {
  await writeFile(runtimeFile(directory), `${JSON.stringify(runtime, null, 2)}\n`, { mode: 0o600 });
}

export async function removeRuntime(directory: string, pid: number): Promise<void> {
  const current = await readRuntime(directory);
  if (current?.pid === pid) await rm(runtimeFile(directory), { force: true });
}

export async function readRuntime(directory: string): Promise<LocalRuntime | undefined> {
  try {
    return JSON.parse(await readFile(runtimeFile(directory), 'utf8')) as LocalRuntime;
  } catch {
    return undefined;
  }
}

export function isProcessAlive(pid: number): boolean {
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
