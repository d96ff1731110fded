import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout } from 'node:timers/promises';
import { Template } from 'aws-cdk-lib/assertions';
import { CloudAssembly } from 'aws-cdk-lib/cx-api';
import { inject } from 'vitest';
import type { DeployedStage } from '../../core/stages';
import { DEPLOYED_STAGES } from '../../core/stages';
import { API_GATEWAY_ACCOUNT_STACK } from '../../lib/api-gateway-account-stack';
import { costWatchStackName } from '../../lib/cost-watch-stack';
import { stackName } from '../../lib/stage-config';
import type { SynthesisOutcome } from './app-synthesis';
import { synthesisPaths } from './app-synthesis';

export { TEST_DEPLOYMENT, TEST_MAIL_FROM } from './app-synthesis';

declare module 'vitest' {
  export interface ProvidedContext {
    /** The folder of the infra project's one synthesis (see app-synthesis.ts). */
    infraCloudAssembly: string;
  }
}

/** One rule finding of the validation report, as CDK writes it (the parts the tests read). */
interface ReportedViolation {
  readonly ruleName: string;
  readonly severity: string;
  readonly reason?: string;
  readonly violatingConstructs: readonly { readonly constructPath: string }[];
}

interface ValidationReport {
  readonly pluginReports: readonly {
    readonly pluginName: string;
    readonly conclusion: string;
    readonly violations: readonly ReportedViolation[];
    readonly suppressedViolations?: readonly ReportedViolation[];
  }[];
}

export interface SynthesizedApp {
  readonly templates: Readonly<Record<DeployedStage, Template>>;
  /** The account's API Gateway logging role (ApiGatewayAccountStack), which both stages wait for. */
  readonly accountTemplate: Template;
  /** Each stage's budget and cost anomaly monitor (CostWatchStack, in us-east-1), which its stage waits for. */
  readonly costTemplates: Readonly<Record<DeployedStage, Template>>;
  readonly report: ValidationReport;
}

/** As long as a test file waits for the synthesis (the infra project's hook timeout). */
const SYNTHESIS_DEADLINE_MS = 300_000;

/**
 * The global setup synthesizes the app while the test files that do not need it run; a file
 * that imports this module waits here, at import, until the synthesis has ended, and fails to
 * load with the synthesis error if it failed.
 */
const paths = synthesisPaths(inject('infraCloudAssembly'));
const deadline = Date.now() + SYNTHESIS_DEADLINE_MS;
while (!existsSync(paths.outcome)) {
  if (Date.now() > deadline)
    throw new Error(`The synthesis of the app did not end in ${SYNTHESIS_DEADLINE_MS / 1000} s`);
  await setTimeout(100);
}
const outcome = JSON.parse(readFileSync(paths.outcome, 'utf8')) as SynthesisOutcome;
if (!outcome.ok) throw new Error(`The synthesis of the app failed:\n${outcome.error}`);

let cached: SynthesizedApp | undefined;

/** The templates and cdk-nag report of the run's one synthesis (read once per test file). */
export function synthesizedApp(): SynthesizedApp {
  if (cached) return cached;
  const assembly = new CloudAssembly(paths.assembly);
  const templates = Object.fromEntries(
    DEPLOYED_STAGES.map((stage) => [
      stage,
      Template.fromJSON(assembly.getStackByName(stackName(stage)).template),
    ]),
  ) as Record<DeployedStage, Template>;
  const report = JSON.parse(
    readFileSync(join(assembly.directory, 'validation-report.json'), 'utf8'),
  ) as ValidationReport;
  const accountTemplate = Template.fromJSON(assembly.getStackByName(API_GATEWAY_ACCOUNT_STACK).template);
  const costTemplates = Object.fromEntries(
    DEPLOYED_STAGES.map((stage) => [
      stage,
      Template.fromJSON(assembly.getStackByName(costWatchStackName(stage)).template),
    ]),
  ) as Record<DeployedStage, Template>;
  cached = { templates, accountTemplate, costTemplates, report };
  return cached;
}
