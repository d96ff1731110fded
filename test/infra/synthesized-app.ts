import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { App, Validations } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PartnerApiStack } from '../../lib/partner-api-stack';
import type { DeployedStage } from '../../lib/stage-config';
import { DEPLOYED_STAGES, stackName, stageConfig } from '../../lib/stage-config';

/** What `-c mailFrom:<stage>=…` gives the app in the tests. */
export const TEST_MAIL_FROM: Readonly<Record<DeployedStage, string>> = {
  sandbox: 'Partner Team <partners-sandbox@example.com>',
  production: 'Partner Team <partners@partner-api.dev>',
};

/** One rule finding of the validation report, as CDK writes it (the parts the tests read). */
export interface ReportedViolation {
  readonly ruleName: string;
  readonly severity: string;
  readonly reason?: string;
  readonly violatingConstructs: readonly { readonly constructPath: string }[];
}

export interface ValidationReport {
  readonly pluginReports: readonly {
    readonly pluginName: string;
    readonly conclusion: string;
    readonly violations: readonly ReportedViolation[];
    readonly suppressedViolations?: readonly ReportedViolation[];
  }[];
}

export interface SynthesizedApp {
  readonly stacks: Readonly<Record<DeployedStage, PartnerApiStack>>;
  readonly templates: Readonly<Record<DeployedStage, Template>>;
  readonly report: ValidationReport;
  /** Removes the cloud assembly. */
  dispose(): void;
}

/**
 * The app of `bin/app.ts` (both stages, cdk-nag attached), synthesized once with real esbuild
 * bundling into a temporary directory. Synthesis throws if cdk-nag reports an unacknowledged
 * error, as `cdk synth` fails.
 */
export function synthesizeApp(): SynthesizedApp {
  const outdir = mkdtempSync(join(tmpdir(), 'partner-api-cdk-'));
  const app = new App({ outdir });
  const stacks = Object.fromEntries(
    DEPLOYED_STAGES.map((stage) => [
      stage,
      new PartnerApiStack(app, stackName(stage), {
        config: stageConfig(stage, { mailFrom: TEST_MAIL_FROM[stage] }),
      }),
    ]),
  ) as Record<DeployedStage, PartnerApiStack>;
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  const assembly = app.synth();
  const templates = Object.fromEntries(
    DEPLOYED_STAGES.map((stage) => [
      stage,
      Template.fromJSON(assembly.getStackByName(stackName(stage)).template),
    ]),
  ) as Record<DeployedStage, Template>;
  const report = JSON.parse(
    readFileSync(join(assembly.directory, 'validation-report.json'), 'utf8'),
  ) as ValidationReport;
  return { stacks, templates, report, dispose: () => rmSync(outdir, { recursive: true, force: true }) };
}
