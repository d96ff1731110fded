import type { Output } from '@aws-sdk/client-cloudformation';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { STSClient } from '@aws-sdk/client-sts';
import { queueUrlVariable } from '../core/event-delivery';
import { runtimeEnvironment, runtimeSettingsOf } from '../core/runtime-settings';
import { secretArnVariable } from '../core/service-secrets';
import type { DeployedStage } from '../core/stages';
import { useServiceEnvironment } from '../lambdas/common/config';
import { STACK_OUTPUTS, stackName, stageSettings } from '../lib/stage-config';
import { OperatorError } from '../operations/operator-error';
import type { OperatorTarget } from '../operations/target';
import { apiGatewayUsagePlanKeys, cloudWatchAccessLog, sesMailer } from './aws-operator-services';
import { deployedOperator } from './operator-identity';

/**
 * The outputs the CLI reads (the operator policy's ARN is for people attaching it, the outbound
 * bus's ARN for the platform's side to name in its bus policy, the custom domain's DNS targets for
 * whoever keeps the DNS records, the failed backup jobs' queue for whoever answers its alarm, the
 * canary's secret and name for whoever stores its key and reads its runs: none is for the CLI).
 */
type StackOutputs = Record<
  Exclude<
    keyof typeof STACK_OUTPUTS,
    | 'operatorPolicyArn'
    | 'outboundEventBusArn'
    | 'apiDomainTarget'
    | 'apiDomainHostedZoneId'
    | 'pagesDomainTarget'
    | 'pagesDomainHostedZoneId'
    | 'failedBackupJobsQueueUrl'
    | 'canaryKeySecretArn'
    | 'canaryName'
  >,
  string
>;

/** Stack states in which the outputs describe what is deployed. */
const USABLE_STATUSES = new Set([
  'CREATE_COMPLETE',
  'UPDATE_COMPLETE',
  'UPDATE_ROLLBACK_COMPLETE',
  'IMPORT_COMPLETE',
]);

async function describeStack(client: CloudFormationClient, name: string, stage: DeployedStage) {
  const region = await client.config.region().catch(() => undefined);
  if (!region) {
    throw new OperatorError(
      `No AWS region is configured: set AWS_REGION (or a region in your AWS profile) to the region of ${name}.`,
    );
  }
  try {
    const { Stacks } = await client.send(new DescribeStacksCommand({ StackName: name }));
    const stack = Stacks?.[0];
    if (stack) return { stack, region };
  } catch (error) {
    if (
      !(error instanceof Error && error.name === 'ValidationError' && /does not exist/i.test(error.message))
    )
      throw error;
  }
  throw new OperatorError(
    `Stage ${stage} is not deployed in ${region}: there is no stack ${name}. Deploy it with "npx cdk deploy ${name}", or point AWS_REGION/AWS_PROFILE at the account and region where it lives.`,
  );
}

function readOutputs(outputs: readonly Output[], name: string): StackOutputs {
  const byKey = new Map(outputs.map((output) => [output.OutputKey, output.OutputValue]));
  const missing: string[] = [];
  const read = (key: string): string => {
    const value = byKey.get(key);
    if (!value) missing.push(key);
    return value ?? '';
  };
  const values: StackOutputs = {
    apiBaseUrl: read(STACK_OUTPUTS.apiBaseUrl),
    activationBaseUrl: read(STACK_OUTPUTS.activationBaseUrl),
    tableName: read(STACK_OUTPUTS.tableName),
    sealingSecretArn: read(STACK_OUTPUTS.sealingSecretArn),
    usagePlanId: read(STACK_OUTPUTS.usagePlanId),
    mailFrom: read(STACK_OUTPUTS.mailFrom),
    accessLogGroupName: read(STACK_OUTPUTS.accessLogGroupName),
    eventBusName: read(STACK_OUTPUTS.eventBusName),
    outboundEventBusName: read(STACK_OUTPUTS.outboundEventBusName),
    platformEventsQueueUrl: read(STACK_OUTPUTS.platformEventsQueueUrl),
    platformEventsDeadLetterQueueUrl: read(STACK_OUTPUTS.platformEventsDeadLetterQueueUrl),
  };
  if (missing.length > 0) {
    throw new OperatorError(
      `Stack ${name} has no output ${missing.join(', ')}: deploy this checkout with "npx cdk deploy ${name}".`,
    );
  }
  return values;
}

/**
 * A deployed stage, found through the outputs of its CloudFormation stack. The data modules act
 * on its table and secret from here on, with the operator's AWS credentials (nothing local).
 */
export async function deployedTarget(
  stage: DeployedStage,
  client: CloudFormationClient = new CloudFormationClient({}),
): Promise<OperatorTarget> {
  const name = stackName(stage);
  const { stack, region } = await describeStack(client, name, stage);
  if (!stack.StackStatus || !USABLE_STATUSES.has(stack.StackStatus)) {
    throw new OperatorError(
      `Stack ${name} is ${stack.StackStatus ?? 'in an unknown state'}; wait for its deployment to finish (or fix it) and try again.`,
    );
  }
  const outputs = readOutputs(stack.Outputs ?? [], name);
  useServiceEnvironment({
    STAGE: stage,
    TABLE_NAME: outputs.tableName,
    [secretArnVariable('sealing')]: outputs.sealingSecretArn,
    ...runtimeEnvironment(runtimeSettingsOf(stageSettings[stage])),
    EVENT_BUS_NAME: outputs.eventBusName,
    OUTBOUND_EVENT_BUS_NAME: outputs.outboundEventBusName,
    [queueUrlVariable('platformEvents')]: outputs.platformEventsQueueUrl,
    [queueUrlVariable('platformEventsDeadLetter')]: outputs.platformEventsDeadLetterQueueUrl,
  });
  return {
    stage,
    actor: await deployedOperator(new STSClient({ region })),
    apiBaseUrl: outputs.apiBaseUrl.replace(/\/+$/, ''),
    activationBaseUrl: outputs.activationBaseUrl.replace(/\/+$/, ''),
    mailer: sesMailer(outputs.mailFrom),
    usagePlanKeys: apiGatewayUsagePlanKeys(outputs.usagePlanId),
    accessLog: cloudWatchAccessLog(outputs.accessLogGroupName),
  };
}
