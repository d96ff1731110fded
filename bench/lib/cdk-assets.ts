import { existsSync } from 'node:fs';
import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { childEnvironment, runProcess } from './child';
import { progress } from './progress';

export const REPOSITORY_ROOT = new URL('../../', import.meta.url).pathname;
const CDK_OUT = join(REPOSITORY_ROOT, 'cdk.out');
export const SANDBOX_STACK = 'PartnerApi-sandbox';

/** Inputs of the synthesis: when any is newer than cdk.out, the bundles there are stale. */
const SYNTH_INPUTS = ['lambdas', 'lib', 'bin', 'package-lock.json', 'cdk.json', 'tsconfig.json'];

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

/** Runs `npm run synth` when cdk.out is missing or older than its inputs; returns seconds spent. */
export async function ensureSynthesized(): Promise<{
  synthesized: boolean;
  reason: string;
  seconds: number;
}> {
  const reason = await staleness();
  if (!reason) return { synthesized: false, reason: 'cdk.out is current', seconds: 0 };
  progress(`cdk synth (${reason}), about 20 s…`);
  const started = performance.now();
  const { code } = await runProcess('npm', ['run', '-s', 'synth'], {
    env: childEnvironment(),
    cwd: REPOSITORY_ROOT,
  });
  if (code !== 0) throw new Error(`npm run synth exited with code ${code}`);
  return { synthesized: true, reason, seconds: (performance.now() - started) / 1000 };
}

export interface FunctionBundle {
  readonly logicalId: string;
  readonly description: string;
  readonly assetHash: string;
  readonly directory: string;
  readonly handlerFile: string;
  /** The function's environment as the template sets it; references resolved to stand-ins. */
  readonly environment: Record<string, string>;
  readonly memorySize: number;
  readonly runtime: string;
}

interface TemplateFunction {
  Type: string;
  Properties?: {
    Description?: string;
    Handler?: string;
    Runtime?: string;
    MemorySize?: number;
    Code?: { S3Key?: unknown };
    Environment?: { Variables?: Record<string, unknown> };
  };
}

interface AssetManifest {
  files: Record<string, { source: { path: string; packaging?: string } }>;
}

/** Stand-ins for values CloudFormation fills in at deploy time (`Ref`s in the template). */
function resolveVariable(name: string, value: unknown): string {
  if (typeof value === 'string') return value;
  if (name === 'TABLE_NAME') return 'PartnerApi-sandbox-DataTable';
  if (name.endsWith('_SECRET_ARN'))
    return `arn:aws:secretsmanager:eu-west-1:123456789012:secret:${name.toLowerCase()}-bench`;
  return `unresolved-${name}`;
}

/**
 * Each AWS::Lambda::Function of the synthesized sandbox template, mapped to the asset folder CDK
 * bundled for it: the Code S3Key is `<asset hash>.zip`, and the asset manifest names that
 * hash's source folder.
 */
export async function functionBundles(): Promise<FunctionBundle[]> {
  const template = JSON.parse(await readFile(join(CDK_OUT, `${SANDBOX_STACK}.template.json`), 'utf8')) as {
    Resources: Record<string, TemplateFunction>;
  };
  const manifest = JSON.parse(
    await readFile(join(CDK_OUT, `${SANDBOX_STACK}.assets.json`), 'utf8'),
  ) as AssetManifest;
  const bundles: FunctionBundle[] = [];
  for (const [logicalId, resource] of Object.entries(template.Resources)) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    const properties = resource.Properties ?? {};
    const s3Key = properties.Code?.S3Key;
    if (typeof s3Key !== 'string') throw new Error(`${logicalId}: Code.S3Key is not a literal asset key`);
    const assetHash = s3Key.replace(/\.zip$/, '');
    const asset = manifest.files[assetHash];
    if (!asset) throw new Error(`${logicalId}: asset ${assetHash} is not in the asset manifest`);
    const directory = join(CDK_OUT, asset.source.path);
    const [fileName = 'index'] = (properties.Handler ?? 'index.handler').split('.');
    const handlerFile = ['.mjs', '.js', '.cjs']
      .map((extension) => join(directory, fileName + extension))
      .find((path) => existsSync(path));
    if (!handlerFile) throw new Error(`${logicalId}: no ${fileName}.mjs in ${directory}`);
    const environment = Object.fromEntries(
      Object.entries(properties.Environment?.Variables ?? {}).map(([name, value]) => [
        name,
        resolveVariable(name, value),
      ]),
    );
    bundles.push({
      logicalId,
      description: properties.Description ?? logicalId,
      assetHash,
      directory,
      handlerFile,
      environment,
      memorySize: properties.MemorySize ?? 128,
      runtime: properties.Runtime ?? 'unknown',
    });
  }
  return bundles;
}
