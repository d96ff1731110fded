import { existsSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';

/**
 * The functions as `cdk synth` built them into a cloud assembly (`cdk.out`): each
 * AWS::Lambda::Function of a stack's template, the asset folder CDK bundled for it (the Code
 * S3Key is `<asset hash>.zip`, which the asset manifest maps to its source folder), and the
 * environment, timeout and memory the template gives it. The local server can run exactly these
 * (`npm start -- --bundles cdk.out`), and the bench measures them.
 */
export interface DeployedFunction {
  readonly logicalId: string;
  /** Its name in the route table, from its `service-function` tag (undefined for a function without one). */
  readonly name?: string;
  readonly description: string;
  readonly assetHash: string;
  readonly directory: string;
  readonly handlerFile: string;
  /** Environment variables as the template writes them: strings, or CloudFormation references. */
  readonly variables: Readonly<Record<string, unknown>>;
  readonly timeoutSeconds: number;
  readonly memoryMb: number;
  readonly runtime: string;
}

interface TemplateFunction {
  Type: string;
  Properties?: {
    Description?: string;
    Handler?: string;
    Runtime?: string;
    MemorySize?: number;
    Timeout?: number;
    Code?: { S3Key?: unknown };
    Environment?: { Variables?: Record<string, unknown> };
    Tags?: { Key: string; Value: string }[];
  };
}

interface AssetManifest {
  files: Record<string, { source: { path: string; packaging?: string } }>;
}

/** Every function of a synthesized stack. Throws, saying what to run, when the assembly lacks it. */
export async function deployedFunctions(cdkOut: string, stackName: string): Promise<DeployedFunction[]> {
  const templateFile = join(cdkOut, `${stackName}.template.json`);
  if (!existsSync(templateFile))
    throw new Error(
      `${templateFile} is missing: run "npm run synth" first (it builds ${stackName} into ${cdkOut}).`,
    );
  const template = JSON.parse(await readFile(templateFile, 'utf8')) as {
    Resources: Record<string, TemplateFunction>;
  };
  const manifest = JSON.parse(
    await readFile(join(cdkOut, `${stackName}.assets.json`), 'utf8'),
  ) as AssetManifest;
  const functions: DeployedFunction[] = [];
  for (const [logicalId, resource] of Object.entries(template.Resources)) {
    if (resource.Type !== 'AWS::Lambda::Function') continue;
    const properties = resource.Properties ?? {};
    const s3Key = properties.Code?.S3Key;
    if (typeof s3Key !== 'string') throw new Error(`${logicalId}: Code.S3Key is not a literal asset key`);
    const assetHash = s3Key.replace(/\.zip$/, '');
    const asset = manifest.files[assetHash];
    if (!asset) throw new Error(`${logicalId}: asset ${assetHash} is not in the asset manifest`);
    const directory = resolve(cdkOut, asset.source.path);
    const [fileName = 'index'] = (properties.Handler ?? 'index.handler').split('.');
    const handlerFile = ['.mjs', '.js', '.cjs']
      .map((extension) => join(directory, fileName + extension))
      .find((path) => existsSync(path));
    if (!handlerFile) throw new Error(`${logicalId}: no ${fileName}.mjs in ${directory}`);
    const name = properties.Tags?.find((tag) => tag.Key === 'service-function')?.Value;
    functions.push({
      logicalId,
      ...(name ? { name } : {}),
      description: properties.Description ?? logicalId,
      assetHash,
      directory,
      handlerFile,
      variables: properties.Environment?.Variables ?? {},
      timeoutSeconds: properties.Timeout ?? 3,
      memoryMb: properties.MemorySize ?? 128,
      runtime: properties.Runtime ?? 'unknown',
    });
  }
  return functions;
}
