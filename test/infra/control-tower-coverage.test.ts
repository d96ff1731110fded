import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEPLOYED_STAGES } from '../../core/stages';
import { synthesizedApp } from './synthesized-app';

/**
 * Which AWS Control Tower proactive controls evaluate anything in the synthesized templates. A
 * control selects resources by type and skips a template without them, silently: CT.DYNAMODB.PR.1
 * and PR.2 select AWS::DynamoDB::Table, and TableV2 synthesizes AWS::DynamoDB::GlobalTable. This
 * runs the plugin's cfn-guard binary with the plugin's own Control Tower rules over both templates,
 * and holds docs/deploying.md to the list it finds.
 */

const PLUGIN = dirname(
  createRequire(import.meta.url).resolve('@cdklabs/cdk-validator-cfnguard/package.json'),
);
const RULES = join(PLUGIN, 'rules', 'control-tower', 'cfn-guard');
// Where the plugin finds its binary (lib/plugin.js of @cdklabs/cdk-validator-cfnguard).
const GUARD = join(
  PLUGIN,
  'bin',
  process.platform === 'darwin' ? 'macos' : 'ubuntu',
  process.arch === 'arm64' ? 'aarch64' : 'x86_64',
  'cfn-guard',
);

/** The controls that evaluate at least one resource of this app's templates (pass or fail). */
const EVALUATED = [
  'CT.APIGATEWAY.PR.1',
  'CT.APIGATEWAY.PR.2',
  'CT.APIGATEWAY.PR.6',
  'CT.CLOUDWATCH.PR.1',
  'CT.CLOUDWATCH.PR.2',
  'CT.CLOUDWATCH.PR.3',
  'CT.CLOUDWATCH.PR.4',
  'CT.IAM.PR.1',
  'CT.IAM.PR.2',
  'CT.IAM.PR.3',
  'CT.IAM.PR.4',
  'CT.IAM.PR.5',
  'CT.LAMBDA.PR.2',
  'CT.LAMBDA.PR.3',
  // The canary's artifacts bucket.
  'CT.S3.PR.1',
  'CT.S3.PR.10',
  'CT.S3.PR.11',
  'CT.S3.PR.2',
  'CT.S3.PR.4',
  'CT.S3.PR.5',
  'CT.S3.PR.6',
  'CT.S3.PR.8',
  'CT.S3.PR.9',
  'CT.SQS.PR.1',
  'CT.SQS.PR.2',
  'CT.WAFV2.PR.1',
];

let directory = '';
beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'partner-api-ct-'));
});
afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

/** `ct-cloudwatch-pr-1` → `CT.CLOUDWATCH.PR.1`. */
const controlId = (file: string) =>
  file
    .replace(/\.guard$/, '')
    .toUpperCase()
    .replaceAll('-', '.');

/** The controls that pass or fail on the template (cfn-guard's summary leaves skipped ones out). */
function evaluatedControls(templateFile: string, resourceTypes: ReadonlySet<string>): string[] {
  // Only rule files that name a type of the template can apply; the others would only skip.
  const candidates = readdirSync(RULES, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.guard'))
    .filter((file) =>
      [...readFileSync(join(RULES, file), 'utf8').matchAll(/["'](AWS::\w+::\w+)["']/g)].some(([, type]) =>
        resourceTypes.has(type ?? ''),
      ),
    );
  const run = spawnSync(
    GUARD,
    [
      'validate',
      ...candidates.flatMap((file) => ['-r', join(RULES, file)]),
      '-d',
      templateFile,
      '--show-summary',
      'pass,fail',
    ],
    { encoding: 'utf8' },
  );
  // 0: all passed; 19: some failed (the synthesis acknowledges those, see partner-api-stack-checks.test.ts).
  expect([0, 19], run.stderr).toContain(run.status);
  return [...run.stdout.matchAll(/^(ct-[a-z0-9-]+)\.guard\/\w+\s+(?:PASS|FAIL)$/gm)].map(([, file]) =>
    controlId(file ?? ''),
  );
}

describe('the Control Tower controls that evaluate this app', () => {
  it('are exactly the listed ones, and neither DynamoDB control is among them', () => {
    const { templates } = synthesizedApp();
    const evaluated = new Set<string>();
    for (const stage of DEPLOYED_STAGES) {
      const template = templates[stage].toJSON() as { Resources: Record<string, { Type: string }> };
      const file = join(directory, `${stage}.template.json`);
      writeFileSync(file, JSON.stringify(template));
      const types = new Set(Object.values(template.Resources).map((resource) => resource.Type));
      expect(types.has('AWS::DynamoDB::GlobalTable')).toBe(true);
      for (const control of evaluatedControls(file, types)) evaluated.add(control);
    }

    expect([...evaluated].sort()).toEqual(EVALUATED);
    expect(evaluated.has('CT.DYNAMODB.PR.1')).toBe(false);
    expect(evaluated.has('CT.DYNAMODB.PR.2')).toBe(false);
  });

  it('are the ones docs/deploying.md says are checked', () => {
    const docs = readFileSync('docs/deploying.md', 'utf8');
    const section = docs.slice(
      docs.indexOf('## Checks at synthesis'),
      docs.indexOf('## Left outside the stack'),
    );

    for (const control of [...EVALUATED, 'CT.DYNAMODB.PR.1', 'CT.DYNAMODB.PR.2'])
      expect(section, control).toContain(control);
  });
});
