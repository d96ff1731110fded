import {
  CloudFormationClient,
  DescribeStackResourceCommand,
  DescribeStacksCommand,
  GetTemplateCommand,
} from '@aws-sdk/client-cloudformation';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, describe, expect, it } from 'vitest';
import { STACK_OUTPUTS } from '../../lib/stage-config';
import { deployedAuthorizerFailureProbe } from '../../verify/aws-probe';
import { synthesizedApp } from './synthesized-app';

const cloudFormation = mockClient(CloudFormationClient);
afterEach(() => cloudFormation.reset());

describe("the verification's forced authorizer failure on a deployed stage", () => {
  it("acts on the authorizer's own role, found by its tag in the deployed template, and the API's access log", async () => {
    const template = synthesizedApp().templates.production.toJSON() as {
      Resources: Record<string, { Type: string; Properties?: Record<string, unknown> }>;
    };
    cloudFormation.on(GetTemplateCommand).resolves({ TemplateBody: JSON.stringify(template) });
    cloudFormation
      .on(DescribeStackResourceCommand)
      .callsFake(({ LogicalResourceId }: { LogicalResourceId: string }) => ({
        StackResourceDetail: { PhysicalResourceId: `physical-${LogicalResourceId}` },
      }));
    cloudFormation.on(DescribeStacksCommand).resolves({
      Stacks: [
        {
          StackName: 'PartnerApi-production',
          StackStatus: 'UPDATE_COMPLETE',
          CreationTime: new Date(0),
          Outputs: [{ OutputKey: STACK_OUTPUTS.accessLogGroupName, OutputValue: 'partner-api-access-log' }],
        },
      ],
    });

    const probe = await deployedAuthorizerFailureProbe('production', new CloudFormationClient({}), 300_000);

    // The role the authorizer function runs with, and the one whose policy lets it read key records.
    const [roleId] = Object.entries(template.Resources)
      .filter(([, resource]) => resource.Type === 'AWS::IAM::Role')
      .map(([id]) => id)
      .filter((id) => id.startsWith('PartnerApiAuthorizerFunctionRole'));
    expect(probe.authorizerRoleName).toBe(`physical-${roleId}`);
    const policy = Object.values(template.Resources).find(
      (resource) =>
        resource.Type === 'AWS::IAM::Policy' &&
        JSON.stringify(resource.Properties?.Roles) === JSON.stringify([{ Ref: roleId }]),
    );
    expect(JSON.stringify(policy?.Properties?.PolicyDocument)).toContain('"APIKEY#*"');
    expect(probe.accessLogGroupName).toBe('partner-api-access-log');
    expect(probe.logWaitMs).toBe(300_000);
    expect(cloudFormation.commandCalls(GetTemplateCommand)[0]?.args[0].input.StackName).toBe(
      'PartnerApi-production',
    );
  });

  it('says so when the deployed stack has no tagged authorizer (an older deployment)', async () => {
    cloudFormation.on(GetTemplateCommand).resolves({ TemplateBody: JSON.stringify({ Resources: {} }) });
    cloudFormation.on(DescribeStacksCommand).resolves({
      Stacks: [
        {
          StackName: 'PartnerApi-sandbox',
          StackStatus: 'UPDATE_COMPLETE',
          CreationTime: new Date(0),
          Outputs: [{ OutputKey: STACK_OUTPUTS.accessLogGroupName, OutputValue: 'log' }],
        },
      ],
    });

    await expect(deployedAuthorizerFailureProbe('sandbox', new CloudFormationClient({}), 0)).rejects.toThrow(
      'Stack PartnerApi-sandbox has no function tagged service-function: authorizer with a role of its own: deploy this checkout.',
    );
  });
});
