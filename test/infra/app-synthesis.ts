import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import type { DeployedStage } from '../../core/stages';
import { DEPLOYED_STAGES } from '../../core/stages';
import { addServiceStacks } from '../../lib/partner-api-stack';
import type { DeploymentSettings } from '../../lib/stage-config';
import { stageConfig } from '../../lib/stage-config';
import { attachTemplateChecks } from '../../lib/template-checks';

/** What `-c mailFrom:<stage>=…` gives the app in the tests. */
export const TEST_MAIL_FROM: Readonly<Record<DeployedStage, string>> = {
  sandbox: 'Partner Team <partners-sandbox@example.com>',
  production: 'Partner Team <partners@partner-api.dev>',
};

/**
 * What `-c alarmTopicArn:production=…` gives the app in the tests and in `npm run test:deployed`
 * (an example account; synthesis never looks the topic up). Production requires one.
 */
export const TEST_ALARM_TOPIC_ARN = 'arn:aws:sns:eu-west-1:123456789012:ops-alarms';

/** What `-c apiDomain:production=… -c pagesDomain:production=… -c certificateArn:production=…` give: example names. */
export const TEST_CUSTOM_DOMAIN = {
  apiDomain: 'api.partner-api.dev',
  pagesDomain: 'go.partner-api.dev',
  certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/00000000-0000-4000-8000-000000000000',
} as const;

/**
 * What `-c backupCopyVaultArn:production=…` gives: a vault of the example account in another region
 * (eu-central-1; the stage's certificate says eu-west-1), so the copies outlive the stage's region.
 */
export const TEST_BACKUP_COPY_VAULT_ARN =
  'arn:aws:backup:eu-central-1:123456789012:backup-vault:partner-api-copies';

/**
 * The deployment settings of the tests' synthesis: sandbox without an alarm topic or a custom domain
 * (so the path of a stage without them is synthesized and checked too), production with the example
 * topic, names and backup copy vault that `npm run synth:example` gives.
 */
export const TEST_DEPLOYMENT: Readonly<Record<DeployedStage, DeploymentSettings>> = {
  sandbox: { mailFrom: TEST_MAIL_FROM.sandbox },
  production: {
    mailFrom: TEST_MAIL_FROM.production,
    alarmTopicArn: TEST_ALARM_TOPIC_ARN,
    customDomain: TEST_CUSTOM_DOMAIN,
    backupCopyVaultArn: TEST_BACKUP_COPY_VAULT_ARN,
  },
};

/** Where the global setup puts the cloud assembly, and the outcome of the synthesis, in its folder. */
export const synthesisPaths = (directory: string) => ({
  assembly: join(directory, 'cdk.out'),
  /** Written once the synthesis ended: `{ "ok": true }` or `{ "ok": false, "error": "…" }`. */
  outcome: join(directory, 'synthesis.json'),
});

export type SynthesisOutcome = { readonly ok: true } | { readonly ok: false; readonly error: string };

/**
 * Synthesizes the app of `bin/app.ts` (both stages, cdk-nag and cfn-guard attached) with real
 * esbuild bundling into `outdir`, as `cdk synth` does; fails if a check reports an
 * unacknowledged finding, as `cdk synth` fails. Run once per test run, in a process of its own, by the infra
 * project's global setup (test/support/infra-synthesis-setup.ts); test files read the result
 * through `synthesizedApp()` of ./synthesized-app.ts.
 */
export function synthesizeApp(outdir: string): void {
  const app = new App({ outdir });
  addServiceStacks(
    app,
    DEPLOYED_STAGES.map((stage) => stageConfig(stage, TEST_DEPLOYMENT[stage])),
  );
  attachTemplateChecks(app);
  app.synth();
}
