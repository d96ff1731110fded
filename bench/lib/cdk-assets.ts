import { existsSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { DeployedFunction } from '../../emulator/deployed-bundles';
import { deployedFunctions } from '../../emulator/deployed-bundles';
import { childEnvironment, runProcess } from './child';
import { progress } from './progress';

export const REPOSITORY_ROOT = new URL('../../', import.meta.url).pathname;
const CDK_OUT = join(REPOSITORY_ROOT, 'cdk.out');
const SANDBOX_STACK = 'PartnerApi-sandbox';

/** Inputs of the synthesis: when any is newer than cdk.out, the bundles there are stale. */
const SYNTH_INPUTS = [
  'core',
  'lambdas',
  'lib',
  'bin',
  'openapi/partner-api.json',
  'package-lock.json',
  'cdk.json',
  'tsconfig.json',
];

async function newestModification(path: string): Promise<number> {
  const info = await stat(path);
  if (!info.isDirectory()) return info.mtimeMs;
  let newest = info.mtimeMs;
  for (const entry of await readdir(path)) {
    newest = Math.max(newest, await newestModification(join(path, entry)));
  }
  return newest;
}

/** Why cdk.out must be synthesized again, or undefined when it is current. */
async function staleness(): Promise<string | undefined> {
  const manifest = join(CDK_OUT, 'manifest.json');
  if (!existsSync(manifest) || !existsSync(join(CDK_OUT, `${SANDBOX_STACK}.template.json`)))
    return 'cdk.out is missing';
  const synthesizedAt = (await stat(manifest)).mtimeMs;
  for (const input of SYNTH_INPUTS) {
    const path = join(REPOSITORY_ROOT, input);
    if (existsSync(path) && (await newestModification(path)) > synthesizedAt)
      return `${input} changed since the last synthesis`;
  }
  return undefined;
}

/**
 * Runs `npm run synth:example` (production with the example alarm topic and custom domain it
 * requires) when cdk.out is missing or older than its inputs; returns seconds spent.
 */
export async function ensureSynthesized(): Promise<{
  synthesized: boolean;
  reason: string;
  seconds: number;
}> {
  const reason = await staleness();
  if (!reason) return { synthesized: false, reason: 'cdk.out is current', seconds: 0 };
  progress(`cdk synth (${reason}), about 20 s…`);
  const started = performance.now();
  const { code } = await runProcess('npm', ['run', '-s', 'synth:example'], {
    env: childEnvironment(),
    cwd: REPOSITORY_ROOT,
  });
  if (code !== 0) throw new Error(`npm run synth:example exited with code ${code}`);
  return { synthesized: true, reason, seconds: (performance.now() - started) / 1000 };
}

export interface FunctionBundle extends DeployedFunction {
  /** The function's environment as the template sets it; references resolved to stand-ins. */
  readonly environment: Record<string, string>;
  readonly memorySize: number;
}

/** Stand-ins for values CloudFormation fills in at deploy time (`Ref`s in the template). */
function resolveVariable(name: string, value: unknown): string {
  if (typeof value === 'string') return value;
  if (name === 'TABLE_NAME') return 'PartnerApi-sandbox-DataTable';
  if (name.endsWith('_SECRET_ARN'))
    return `arn:aws:secretsmanager:eu-west-1:123456789012:secret:${name.toLowerCase()}-bench`;
  return `unresolved-${name}`;
}

/** Each function of the synthesized sandbox template with its bundle (emulator/deployed-bundles.ts). */
export async function functionBundles(): Promise<FunctionBundle[]> {
  return (await deployedFunctions(CDK_OUT, SANDBOX_STACK)).map((deployed) => ({
    ...deployed,
    environment: Object.fromEntries(
      Object.entries(deployed.variables).map(([name, value]) => [name, resolveVariable(name, value)]),
    ),
    memorySize: deployed.memoryMb,
  }));
}
