import { App } from 'aws-cdk-lib';
import type { DeployedStage } from '../core/stages';
import { DEPLOYED_STAGES } from '../core/stages';
import { addServiceStacks } from '../lib/partner-api-stack';
import type { StageConfig } from '../lib/stage-config';
import {
  CUSTOM_DOMAIN_KEYS,
  customDomainOf,
  rollbackAlarmsOf,
  StageConfigError,
  stackName,
  stageConfig,
  withExecuteApi,
} from '../lib/stage-config';
import { attachTemplateChecks } from '../lib/template-checks';

/**
 * The CDK app: one stack per stage (`PartnerApi-sandbox`, `PartnerApi-production`), both waiting for
 * `PartnerApi-apigateway-account` (API Gateway's logging role, one per account and region), each from
 * its settings in `lib/stage-config.ts` and what its deployment supplies as context:
 *
 * - `-c mailFrom:<stage>="Partner Team <partners@your-domain>"` (required): the SES sender of
 *   reveal links. A stage without it is left out of the app, with a message saying so.
 * - `-c alarmTopicArn:<stage>=arn:aws:sns:…` (required for production, optional for sandbox): the
 *   SNS topic of the stage's alarms.
 * - `-c platformPublishers:<stage>=123456789012,arn:aws:iam::…:role/…` (optional): the platform's
 *   accounts or roles allowed to put events on the stage's bus.
 * - `-c platformEventBus:<stage>=arn:aws:events:…:event-bus/…` (optional): the platform's bus that
 *   this service's own events are forwarded to.
 * - `-c apiDomain:<stage>=api.your-domain -c pagesDomain:<stage>=go.your-domain
 *   -c certificateArn:<stage>=arn:aws:acm:…` (together; required for production): the names the
 *   partner API and the pages are served on, and the ACM certificate covering both;
 *   `-c executeApi:<stage>=off` turns the execute-api addresses off once the names work (on by default).
 * - `-c rollbackAlarms:<stage>=ignore` (one deploy, in an incident): CodeDeploy shifts the functions'
 *   aliases without watching the alarms, which would otherwise stop the fix of a red alarm.
 * - `-c backupCopyVaultArn:<stage>=arn:aws:backup:…:backup-vault:…` (required where the stage keeps
 *   backups: production): the vault in another region or account the table's backups are copied to.
 *
 * Every stage's settings are checked before any stack is built, so a refused setting ends the
 * synthesis with its one line at once, before bundling. Stacks are environment-agnostic (no
 * lookups), so `npx cdk synth` works offline; `npx cdk deploy PartnerApi-sandbox -c mailFrom:sandbox=…`
 * deploys to the account and region of your AWS credentials.
 */
const app = new App();

const context = (name: string): string | undefined => {
  const value: unknown = app.node.tryGetContext(name);
  return typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;
};

const configs: StageConfig[] = [];
for (const stage of DEPLOYED_STAGES) {
  const mailFrom = context(`mailFrom:${stage}`);
  if (!mailFrom) {
    process.stderr.write(
      `${stackName(stage)} is not in this app: give its mail sender, e.g. -c mailFrom:${stage}="Partner Team <partners@your-domain>" (docs/deploying.md).\n`,
    );
    continue;
  }
  const alarmTopicArn = context(`alarmTopicArn:${stage}`);
  const publishers = context(`platformPublishers:${stage}`)
    ?.split(',')
    .map((publisher) => publisher.trim())
    .filter((publisher) => publisher !== '');
  const platformEventBus = context(`platformEventBus:${stage}`);
  const backupCopyVaultArn = context(`backupCopyVaultArn:${stage}`);
  try {
    const customDomain = withExecuteApi(
      stage,
      customDomainOf(
        stage,
        Object.fromEntries(CUSTOM_DOMAIN_KEYS.map((key) => [key, context(`${key}:${stage}`)])),
      ),
      context(`executeApi:${stage}`),
    );
    const rollbackAlarms = rollbackAlarmsOf(stage, context(`rollbackAlarms:${stage}`));
    configs.push(
      stageConfig(stage, {
        mailFrom,
        ...(rollbackAlarms ? { rollbackAlarms } : {}),
        ...(alarmTopicArn ? { alarmTopicArn } : {}),
        ...(customDomain ? { customDomain } : {}),
        ...(publishers?.length ? { platformEventPublishers: publishers } : {}),
        ...(platformEventBus ? { platformEventBus } : {}),
        ...(backupCopyVaultArn ? { backupCopyVaultArn } : {}),
      }),
    );
  } catch (error) {
    if (!(error instanceof StageConfigError)) throw error;
    // A setting to correct, not a fault of the app: its message, in one line like the one above.
    process.stderr.write(`${stackName(stage)} cannot be synthesized: ${error.message}\n`);
    process.exit(1);
  }
}
// A custom domain name is unique in a region across all accounts: two stages cannot share one.
const namesOf = (stage: DeployedStage) => {
  const domain = configs.find((config) => config.stage === stage)?.customDomain;
  return domain ? [domain.apiDomain, domain.pagesDomain] : [];
};
const shared = namesOf('sandbox').filter((name) => namesOf('production').includes(name));
if (shared.length > 0) {
  process.stderr.write(
    `${stackName('production')} cannot be synthesized: sandbox and production are given the same name (${shared.join(', ')}); each stage needs names of its own (docs/deploying.md#custom-domain).\n`,
  );
  process.exit(1);
}
addServiceStacks(app, configs);

// cdk-nag and cfn-guard: an unacknowledged finding fails the synthesis.
attachTemplateChecks(app);

app.synth();
