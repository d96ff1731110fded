import type { Output } from '@aws-sdk/client-cloudformation';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import { STSClient } from '@aws-sdk/client-sts';
import { OperatorError } from '../operations/operator-error';
import type { OperatorTarget } from '../operations/target';
import type { WithAccessLog } from '../operations/traffic';
import type { DeployedStage } from '../stage-config';
import { STACK_OUTPUTS, stackName, stageSettings } from '../stage-config';
import { apiGatewayUsagePlanKeys, cloudWatchAccessLog, sesMailer } from './aws-operator-services';
import { deployedOperator } from './operator-identity';

/**
 * Outputs only some commands need: a stack deployed before they existed still serves the others
 * (the command that needs one says to deploy again).
 */
type OptionalOutput = 'accessLogGroupName' | 'operatorPolicyArn';
type StackOutputs = Record<Exclude<keyof typeof STACK_OUTPUTS, OptionalOutput>, string> &
  Partial<Record<OptionalOutput, string>>;

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
  };
  const accessLogGroupName = byKey.get(STACK_OUTPUTS.accessLogGroupName);
  if (missing.length > 0) {
    throw new OperatorError(
      `Stack ${name} has no output ${missing.join(', ')}: it was deployed from an older checkout. Deploy this one with "npx cdk deploy ${name}".`,
    );
  }
  return accessLogGroupName ? { ...values, accessLogGroupName } : values;
}

/**
 * A deployed stage, found through the outputs of its CloudFormation stack. Sets the
 * environment the data modules read when they are first imported (after this call), and
 * clears the local-only variables so nothing can point them at DynamoDB Local or a secrets file.
 */
export async function deployedTarget(
  stage: DeployedStage,
  client: CloudFormationClient = new CloudFormationClient({}),
): Promise<OperatorTarget & WithAccessLog> {
  const name = stackName(stage);
  const { stack, region } = await describeStack(client, name, stage);
  if (!stack.StackStatus || !USABLE_STATUSES.has(stack.StackStatus)) {
    throw new OperatorError(
      `Stack ${name} is ${stack.StackStatus ?? 'in an unknown state'}; wait for its deployment to finish (or fix it) and try again.`,
    );
  }
  const outputs = readOutputs(stack.Outputs ?? [], name);
  process.env.STAGE = stage;
  process.env.TABLE_NAME = outputs.tableName;
  process.env.SEALING_SECRET_ARN = outputs.sealingSecretArn;
  process.env.AUDIT_RETENTION_DAYS = String(stageSettings[stage].auditRetentionDays);
  delete process.env.DYNAMODB_ENDPOINT;
  delete process.env.AWS_ENDPOINT_URL_SECRETS_MANAGER;
  return {
    stage,
    actor: await deployedOperator(new STSClient({ region })),
    apiBaseUrl: outputs.apiBaseUrl.replace(/\/+$/, ''),
    activationBaseUrl: outputs.activationBaseUrl.replace(/\/+$/, ''),
    mailer: sesMailer(outputs.mailFrom),
    usagePlanKeys: apiGatewayUsagePlanKeys(outputs.usagePlanId),
    ...(outputs.accessLogGroupName ? { accessLog: cloudWatchAccessLog(outputs.accessLogGroupName) } : {}),
  };
}
