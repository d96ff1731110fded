import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { CANARY_ENVIRONMENT } from '../../core/canary';
import { DEPLOYED_STAGES } from '../../core/stages';
import { CANARY_RUNTIME } from '../../lib/constructs/partner-api-canary';
import { STACK_OUTPUTS, stackName, stageSettings } from '../../lib/stage-config';
import { synthesisPaths } from './app-synthesis';
import type { SynthesizedApp } from './synthesized-app';
import { synthesizedApp, TEST_DEPLOYMENT } from './synthesized-app';

/**
 * The stage's Synthetics canary as synthesized: its runtime, schedule and script package, its own
 * secret (empty: no key in the template), its role (what AWS documents for a canary, and its secret),
 * its artifacts bucket, the alarm on its runs and its place on the dashboard; and no Lambda function
 * of the stack's own for the deployed-bundles emulator to run.
 */
type Resource = {
  Type: string;
  Properties: Record<string, unknown>;
  DeletionPolicy?: string;
  UpdateReplacePolicy?: string;
};
type TemplateJson = {
  Resources: Record<string, Resource>;
  Outputs: Record<string, { Value: unknown }>;
};

let synthesized: SynthesizedApp;
beforeAll(() => {
  synthesized = synthesizedApp();
});

const templateOf = (stage: (typeof DEPLOYED_STAGES)[number]) =>
  synthesized.templates[stage].toJSON() as TemplateJson;
function only<T>(values: readonly T[], what: string): T {
  expect(values, what).toHaveLength(1);
  const [value] = values;
  if (value === undefined) throw new Error(`no ${what}`);
  return value;
}
const ofType = (template: TemplateJson, type: string) =>
  Object.entries(template.Resources).filter(([, resource]) => resource.Type === type);
const canaryOf = (template: TemplateJson) => only(ofType(template, 'AWS::Synthetics::Canary'), 'canary');
const secretIdOf = (template: TemplateJson) =>
  only(
    ofType(template, 'AWS::SecretsManager::Secret')
      .map(([id]) => id)
      .filter((id) => id.startsWith('CanaryKeySecret')),
    'the canary secret',
  );

describe.each(DEPLOYED_STAGES)('the canary of PartnerApi-%s', (stage) => {
  const settings = stageSettings[stage].canary;

  it('runs the bundled script on the newest Node.js runtime aws-cdk-lib names, on the stage’s schedule', () => {
    const template = templateOf(stage);
    const [, canary] = canaryOf(template);

    expect(canary.Properties).toMatchObject({
      Name: `partner-api-${stage}`,
      RuntimeVersion: CANARY_RUNTIME.name,
      Code: { Handler: 'partner-api-canary.handler' },
      Schedule: { Expression: `rate(${settings.everyMinutes} minutes)`, DurationInSeconds: '0' },
      StartCanaryAfterCreation: true,
      ProvisionedResourceCleanup: 'AUTOMATIC',
      RunConfig: {
        EnvironmentVariables: {
          [CANARY_ENVIRONMENT.baseUrl]: template.Outputs[STACK_OUTPUTS.apiBaseUrl]?.Value,
          [CANARY_ENVIRONMENT.secretArn]: { Ref: secretIdOf(template) },
        },
      },
    });
    expect(CANARY_RUNTIME.name).toBe('syn-nodejs-puppeteer-13.0');
  });

  it('keeps its key in a secret of its own, generated without a key: none is in the template', () => {
    const template = templateOf(stage);
    const secret = template.Resources[secretIdOf(template)];

    expect(secret?.Properties.SecretString).toBeUndefined();
    expect(secret?.Properties.GenerateSecretString).toMatchObject({ SecretStringTemplate: '{"key":""}' });
    expect(JSON.stringify(template)).not.toMatch(/svc_[0-9A-Za-z]{10,}/);
    expect(template.Outputs[STACK_OUTPUTS.canaryKeySecretArn]?.Value).toEqual({ Ref: secretIdOf(template) });
    expect(template.Outputs[STACK_OUTPUTS.canaryName]?.Value).toEqual({ Ref: canaryOf(template)[0] });
    expect(secret?.DeletionPolicy).toBe(stage === 'production' ? 'Retain' : 'Delete');
  });

  it('gives its role what AWS documents for a canary and the read of its own secret, nothing more', () => {
    const template = templateOf(stage);
    const [, canary] = canaryOf(template);
    const roleId = (canary.Properties.ExecutionRoleArn as { 'Fn::GetAtt': [string, string] })[
      'Fn::GetAtt'
    ][0];
    const role = template.Resources[roleId];
    const bucketId = (canary.Properties.ArtifactS3Location as { 'Fn::Join': [string, unknown[]] })[
      'Fn::Join'
    ][1]
      .map((part) => (part as { Ref?: string }).Ref)
      .find((ref) => ref !== undefined);
    const bucketArn = { 'Fn::GetAtt': [bucketId, 'Arn'] };

    expect(role?.Properties.AssumeRolePolicyDocument).toEqual({
      Version: '2012-10-17',
      Statement: [
        { Action: 'sts:AssumeRole', Effect: 'Allow', Principal: { Service: 'lambda.amazonaws.com' } },
      ],
    });
    expect(role?.Properties.ManagedPolicyArns).toBeUndefined();
    const inline = (
      (role?.Properties.Policies ?? []) as { PolicyDocument: { Statement: unknown[] } }[]
    ).flatMap((policy) => policy.PolicyDocument.Statement);
    expect(inline).toEqual([
      { Action: 's3:ListAllMyBuckets', Effect: 'Allow', Resource: '*' },
      { Action: 's3:GetBucketLocation', Effect: 'Allow', Resource: bucketArn },
      { Action: 's3:PutObject', Effect: 'Allow', Resource: { 'Fn::Join': ['', [bucketArn, '/*']] } },
      {
        Action: 'cloudwatch:PutMetricData',
        Condition: { StringEquals: { 'cloudwatch:namespace': 'CloudWatchSynthetics' } },
        Effect: 'Allow',
        Resource: '*',
      },
      {
        Action: ['logs:CreateLogStream', 'logs:CreateLogGroup', 'logs:PutLogEvents'],
        Effect: 'Allow',
        Resource: {
          'Fn::Join': [
            '',
            [
              'arn:',
              { Ref: 'AWS::Partition' },
              ':logs:',
              { Ref: 'AWS::Region' },
              ':',
              { Ref: 'AWS::AccountId' },
              ':log-group:/aws/lambda/cwsyn-*',
            ],
          ],
        },
      },
    ]);
    const attached = ofType(template, 'AWS::IAM::Policy')
      .filter(([, policy]) => JSON.stringify(policy.Properties.Roles) === JSON.stringify([{ Ref: roleId }]))
      .flatMap(([, policy]) => (policy.Properties.PolicyDocument as { Statement: unknown[] }).Statement);
    expect(attached).toEqual([
      { Action: 'secretsmanager:GetSecretValue', Effect: 'Allow', Resource: { Ref: secretIdOf(template) } },
    ]);
    // No other role or policy of the stage names the canary's secret.
    const naming = Object.entries(template.Resources).filter(
      ([id, resource]) =>
        id !== secretIdOf(template) &&
        resource.Type !== 'AWS::Synthetics::Canary' &&
        JSON.stringify(resource).includes(`"Ref":"${secretIdOf(template)}"`),
    );
    expect(naming.map(([id]) => id)).toEqual([expect.stringMatching(/^CanaryServiceRoleDefaultPolicy/)]);
  });

  it('writes its artifacts to a bucket encrypted with KMS, TLS only, never public, emptied after a month', () => {
    const template = templateOf(stage);
    const [, canary] = canaryOf(template);
    const [bucketId, bucket] = only(ofType(template, 'AWS::S3::Bucket'), 'artifacts bucket');
    const [, bucketPolicy] = only(ofType(template, 'AWS::S3::BucketPolicy'), 'bucket policy');

    expect(canary.Properties.ArtifactS3Location).toEqual({ 'Fn::Join': ['', ['s3://', { Ref: bucketId }]] });
    expect(bucket.Properties.BucketEncryption).toEqual({
      ServerSideEncryptionConfiguration: [
        { BucketKeyEnabled: true, ServerSideEncryptionByDefault: { SSEAlgorithm: 'aws:kms' } },
      ],
    });
    expect(bucket.Properties.PublicAccessBlockConfiguration).toEqual({
      BlockPublicAcls: true,
      BlockPublicPolicy: true,
      IgnorePublicAcls: true,
      RestrictPublicBuckets: true,
    });
    const [rule] = (bucket.Properties.LifecycleConfiguration as { Rules: { ExpirationInDays: number }[] })
      .Rules;
    expect(rule?.ExpirationInDays).toBeGreaterThanOrEqual(canary.Properties.FailureRetentionPeriod as number);
    expect(rule?.ExpirationInDays).toBeGreaterThanOrEqual(canary.Properties.SuccessRetentionPeriod as number);
    expect(bucketPolicy.Properties.PolicyDocument).toMatchObject({
      Statement: [
        expect.objectContaining({ Effect: 'Deny', Condition: { Bool: { 'aws:SecureTransport': 'false' } } }),
      ],
    });
    // Retained: CloudFormation cannot delete a bucket with objects, and emptying it would take a function.
    expect(bucket.DeletionPolicy).toBe('Retain');
  });

  it('adds no Lambda function or custom resource to the stack (the deployed-bundles emulator runs every function)', () => {
    const template = templateOf(stage);
    const added = Object.entries(template.Resources).filter(
      ([id, resource]) =>
        id.startsWith('Canary') &&
        (resource.Type === 'AWS::Lambda::Function' || resource.Type.startsWith('Custom::')),
    );
    expect(added).toEqual([]);
    expect(ofType(template, 'AWS::CloudFormation::CustomResource')).toEqual([]);
  });

  it('alarms after the stage’s number of failed (or missing) runs in a row, notifying the topic', () => {
    const template = templateOf(stage);
    const alarm = only(
      ofType(template, 'AWS::CloudWatch::Alarm')
        .map(([, resource]) => resource.Properties)
        .filter((properties) => properties.AlarmName === `${stackName(stage)}-canary-failed`),
      'canary alarm',
    );

    expect(alarm).toMatchObject({
      Namespace: 'CloudWatchSynthetics',
      MetricName: 'SuccessPercent',
      Dimensions: [{ Name: 'CanaryName', Value: { Ref: canaryOf(template)[0] } }],
      Statistic: 'Average',
      Period: settings.everyMinutes * 60,
      Threshold: 100,
      ComparisonOperator: 'LessThanThreshold',
      EvaluationPeriods: settings.failedRunsToAlarm,
      DatapointsToAlarm: settings.failedRunsToAlarm,
      TreatMissingData: 'breaching',
    });
    const topic = TEST_DEPLOYMENT[stage].alarmTopicArn;
    if (topic) {
      expect(alarm.AlarmActions).toEqual([topic]);
      expect(alarm.OKActions).toEqual([topic]);
    } else expect(alarm.AlarmActions).toBeUndefined();
  });

  it('is on the dashboard: runs passed and their duration', () => {
    const template = templateOf(stage);
    const [, dashboard] = only(ofType(template, 'AWS::CloudWatch::Dashboard'), 'dashboard');
    const body = JSON.stringify(dashboard.Properties.DashboardBody);
    const canaryRef = `{"Ref":"${canaryOf(template)[0]}"}`;

    for (const metric of ['SuccessPercent', 'Duration'])
      expect(body).toContain(
        `[\\"CloudWatchSynthetics\\",\\"${metric}\\",\\"CanaryName\\",\\"",${canaryRef}`,
      );
  });
});

describe('the canary schedules', () => {
  it('run production more often than the sandbox', () => {
    expect(stageSettings.production.canary.everyMinutes).toBeLessThan(
      stageSettings.sandbox.canary.everyMinutes,
    );
  });
});

describe('the canary’s script package', () => {
  it('holds one CommonJS file where the puppeteer runtime loads it, exporting the handler', () => {
    const [, canary] = canaryOf(templateOf('production'));
    const key = (canary.Properties.Code as { S3Key: string }).S3Key.replace(/\.zip$/, '');
    const script = join(
      synthesisPaths(inject('infraCloudAssembly')).assembly,
      `asset.${key}`,
      'nodejs',
      'node_modules',
      'partner-api-canary.js',
    );

    const loaded = createRequire(import.meta.url)(script) as { handler?: unknown };
    expect(typeof loaded.handler).toBe('function');
    // The runtime's Synthetics library stays on its layer: required by name, not bundled.
    expect(readFileSync(script, 'utf8')).toContain('"Synthetics"');
  });
});
