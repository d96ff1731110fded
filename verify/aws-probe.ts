import type { CloudFormationClient } from '@aws-sdk/client-cloudformation';
import {
  DescribeStackResourceCommand,
  DescribeStacksCommand,
  GetTemplateCommand,
} from '@aws-sdk/client-cloudformation';
import { CloudWatchLogsClient } from '@aws-sdk/client-cloudwatch-logs';
import { IAMClient } from '@aws-sdk/client-iam';
import { AUTHORIZER } from '../core/routes';
import type { DeployedStage } from '../core/stages';
import { LOCAL_ACCESS_LOG_GROUP } from '../emulator/metric-filters';
import type { LocalRuntime } from '../emulator/runtime';
import { STACK_OUTPUTS, stackName } from '../lib/stage-config';
import type { AuthorizerFailureProbe } from './authorizer-failure';

/** The tag the stack puts on every function with its name in the route table (lib/constructs/service-function.ts). */
const SERVICE_FUNCTION_TAG = 'service-function';

type Template = {
  Resources?: Record<string, { Type?: string; Properties?: Record<string, unknown> }>;
};

/**
 * The authorizer's execution role on a deployed stage, found as the stack deployed it: the
 * function tagged `service-function: authorizer` in the stack's template, its role's logical id,
 * and that resource's physical id (the role's name).
 */
async function deployedAuthorizerRole(cloudFormation: CloudFormationClient, stack: string): Promise<string> {
  const { TemplateBody } = await cloudFormation.send(
    new GetTemplateCommand({ StackName: stack, TemplateStage: 'Original' }),
  );
  const template = JSON.parse(TemplateBody ?? '{}') as Template;
  const authorizer = Object.values(template.Resources ?? {}).find(
    (resource) =>
      resource.Type === 'AWS::Lambda::Function' &&
      (resource.Properties?.Tags as { Key: string; Value: string }[] | undefined)?.some(
        (tag) => tag.Key === SERVICE_FUNCTION_TAG && tag.Value === AUTHORIZER.id,
      ),
  );
  const roleId = (authorizer?.Properties?.Role as { 'Fn::GetAtt'?: [string, string] } | undefined)?.[
    'Fn::GetAtt'
  ]?.[0];
  if (!roleId)
    throw new Error(
      `Stack ${stack} has no function tagged ${SERVICE_FUNCTION_TAG}: ${AUTHORIZER.id} with a role of its own: deploy this checkout.`,
    );
  const { StackResourceDetail } = await cloudFormation.send(
    new DescribeStackResourceCommand({ StackName: stack, LogicalResourceId: roleId }),
  );
  const roleName = StackResourceDetail?.PhysicalResourceId;
  if (!roleName) throw new Error(`Stack ${stack} has no physical role for ${roleId}.`);
  return roleName;
}

/** What a deployed stage's authorizer-failure check acts on: its authorizer's role and access log group. */
export async function deployedAuthorizerFailureProbe(
  stage: DeployedStage,
  cloudFormation: CloudFormationClient,
  logWaitMs: number,
): Promise<AuthorizerFailureProbe> {
  const stack = stackName(stage);
  const { Stacks } = await cloudFormation.send(new DescribeStacksCommand({ StackName: stack }));
  const accessLogGroupName = Stacks?.[0]?.Outputs?.find(
    (output) => output.OutputKey === STACK_OUTPUTS.accessLogGroupName,
  )?.OutputValue;
  if (!accessLogGroupName)
    throw new Error(`Stack ${stack} has no ${STACK_OUTPUTS.accessLogGroupName} output.`);
  return {
    iam: new IAMClient({}),
    logs: new CloudWatchLogsClient({}),
    authorizerRoleName: await deployedAuthorizerRole(cloudFormation, stack),
    accessLogGroupName,
    // IAM applies a policy change within seconds, now and then within a minute.
    denyWaitMs: 90_000,
    logWaitMs,
  };
}

/**
 * The same on the local server: its AWS endpoint answers IAM's role policies (enforced on the
 * functions' DynamoDB calls) and CloudWatch Logs for the access log, signed as the operator.
 */
export function localAuthorizerFailureProbe(
  runtime: Pick<LocalRuntime, 'awsEndpoint' | 'secretAccessKey'>,
): AuthorizerFailureProbe {
  const settings = {
    endpoint: runtime.awsEndpoint,
    region: 'local',
    credentials: { accessKeyId: 'operator', secretAccessKey: runtime.secretAccessKey },
  };
  return {
    iam: new IAMClient(settings),
    logs: new CloudWatchLogsClient(settings),
    authorizerRoleName: AUTHORIZER.id,
    accessLogGroupName: LOCAL_ACCESS_LOG_GROUP,
    denyWaitMs: 10_000,
    logWaitMs: 10_000,
  };
}
