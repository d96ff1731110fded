import { App, Validations } from 'aws-cdk-lib';
import { AwsSolutionsChecks } from 'cdk-nag';
import { PartnerApiStack } from '../lib/partner-api-stack';
import { DEPLOYED_STAGES, stackName, stageConfigs } from '../lib/stage-config';

/**
 * The CDK app: one stack per stage (`PartnerApi-sandbox`, `PartnerApi-production`), each from
 * its entry in `lib/stage-config.ts`. Stacks are environment-agnostic (no lookups), so
 * `npx cdk synth` works offline; `npx cdk deploy PartnerApi-sandbox` deploys to the account and
 * region of your AWS credentials.
 *
 * Context (optional): `-c alarmTopicArn:<stage>=arn:aws:sns:...` sends that stage's alarms to an
 * existing SNS topic.
 */
const app = new App();

for (const stage of DEPLOYED_STAGES) {
  const alarmTopicArn: unknown = app.node.tryGetContext(`alarmTopicArn:${stage}`);
  const config =
    typeof alarmTopicArn === 'string' && alarmTopicArn !== ''
      ? { ...stageConfigs[stage], alarmTopicArn }
      : stageConfigs[stage];
  new PartnerApiStack(app, stackName(stage), { config });
}

// cdk-nag (AwsSolutions pack): an unacknowledged error fails the synthesis.
Validations.of(app).addPlugins(new AwsSolutionsChecks(app));

app.synth();
