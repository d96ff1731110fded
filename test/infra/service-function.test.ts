import { App, Stack } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { AttributeType, TableV2 } from 'aws-cdk-lib/aws-dynamodb';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { Secret } from 'aws-cdk-lib/aws-secretsmanager';
import { describe, expect, it } from 'vitest';
import { ServiceFunction } from '../../lib/constructs/service-function';

/** A stack with one function; bundling is skipped (the stack test bundles for real). */
function stackWithFunction() {
  const app = new App({ context: { 'aws:cdk:bundling-stacks': [] } });
  const stack = new Stack(app, 'Test');
  const table = new TableV2(stack, 'Table', { partitionKey: { name: 'PK', type: AttributeType.STRING } });
  const secrets = {
    session: new Secret(stack, 'Session'),
    sealing: new Secret(stack, 'Sealing'),
    cursor: new Secret(stack, 'Cursor'),
  };
  const serviceFunction = new ServiceFunction(stack, 'Usage', {
    name: 'usage',
    entry: 'api/usage.ts',
    stage: 'sandbox',
    description: 'test',
  });
  return { app, stack, resources: { table, indexName: 'GSI1', secrets }, serviceFunction };
}

const tableArn = { 'Fn::GetAtt': [Match.stringLikeRegexp('^Table'), 'Arn'] };
const onlyPartitions = (...prefixes: string[]) => ({
  'ForAllValues:StringLike': { 'dynamodb:LeadingKeys': prefixes.map((prefix) => `${prefix}*`) },
  Null: { 'dynamodb:LeadingKeys': 'false' },
});

describe('ServiceFunction', () => {
  it('fails the synthesis when anything but X-Ray is granted on every resource', () => {
    const { app, serviceFunction } = stackWithFunction();
    serviceFunction.role.addToPrincipalPolicy(
      new PolicyStatement({ actions: ['s3:GetObject'], resources: ['*'] }),
    );

    expect(() => app.synth()).toThrow(/s3:GetObject is granted on every resource/);
  });

  it('grants each declared table action on its partitions only, the index by its partitions, and named secrets', () => {
    const { stack, resources, serviceFunction } = stackWithFunction();

    serviceFunction.grantAccess(
      {
        table: { getItem: ['PARTNER#'], queryIndex: ['PROPERTY#'], updateItem: ['RATELIMIT#'] },
        secrets: ['session'],
      },
      resources,
    );

    const template = Template.fromStack(stack);
    template.hasResourceProperties('AWS::IAM::Policy', {
      PolicyDocument: {
        Statement: [
          {
            Action: ['logs:CreateLogStream', 'logs:PutLogEvents'],
            Effect: 'Allow',
            Resource: { 'Fn::GetAtt': [Match.anyValue(), 'Arn'] },
          },
          { Action: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'], Effect: 'Allow', Resource: '*' },
          {
            Action: 'dynamodb:GetItem',
            Condition: onlyPartitions('PARTNER#'),
            Effect: 'Allow',
            Resource: tableArn,
          },
          {
            Action: 'dynamodb:UpdateItem',
            Condition: onlyPartitions('RATELIMIT#'),
            Effect: 'Allow',
            Resource: tableArn,
          },
          {
            Action: 'dynamodb:Query',
            Condition: onlyPartitions('PROPERTY#'),
            Effect: 'Allow',
            Resource: { 'Fn::Join': ['', [tableArn, '/index/GSI1']] },
          },
          {
            Action: 'secretsmanager:GetSecretValue',
            Effect: 'Allow',
            Resource: { Ref: Match.stringLikeRegexp('^Session') },
          },
        ],
      },
    });
    template.hasResourceProperties('AWS::Lambda::Function', {
      Environment: {
        Variables: Match.objectLike({
          TABLE_NAME: { Ref: Match.stringLikeRegexp('^Table') },
          SESSION_SECRET_ARN: { Ref: Match.stringLikeRegexp('^Session') },
        }),
      },
      Tags: Match.arrayWith([{ Key: 'service-function', Value: 'usage' }]),
    });
  });

  it('refuses a grant on no partition (it would not be a narrowing)', () => {
    const { resources, serviceFunction } = stackWithFunction();

    expect(() => serviceFunction.grantAccess({ table: { getItem: [] } }, resources)).toThrow(
      /at least one partition-key prefix/,
    );
  });
});
