import {
  APIGatewayClient,
  CreateApiKeyCommand,
  CreateUsagePlanKeyCommand,
  DeleteApiKeyCommand,
  GetApiKeysCommand,
} from '@aws-sdk/client-api-gateway';
import type { DescribeStacksCommandOutput, StackStatus } from '@aws-sdk/client-cloudformation';
import { CloudFormationClient, DescribeStacksCommand } from '@aws-sdk/client-cloudformation';
import {
  GetAccountCommand,
  GetEmailIdentityCommand,
  SESv2Client,
  SendEmailCommand,
} from '@aws-sdk/client-sesv2';
import { GetCallerIdentityCommand, STSClient } from '@aws-sdk/client-sts';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { apiGatewayUsagePlanKeys, sesMailer } from '../../cli/aws-operator-services';
import { deployedTarget } from '../../cli/deployed-target';
import { runtimeSettingsOf } from '../../core/runtime-settings';
import { serviceConfig, useServiceEnvironment } from '../../lambdas/common/config';
import { STACK_OUTPUTS, stageSettings } from '../../lib/stage-config';
import { OperatorError } from '../../operations/operator-error';

const cloudFormation = mockClient(CloudFormationClient);
const apiGateway = mockClient(APIGatewayClient);
const ses = mockClient(SESv2Client);
const sts = mockClient(STSClient);
const OPERATOR_ARN = 'arn:aws:sts::123456789012:assumed-role/Operator/ana';

const OUTPUTS = {
  [STACK_OUTPUTS.apiBaseUrl]: 'https://abc.execute-api.eu-west-1.amazonaws.com/sandbox/partner-api/v1',
  [STACK_OUTPUTS.activationBaseUrl]: 'https://def.execute-api.eu-west-1.amazonaws.com/sandbox',
  [STACK_OUTPUTS.tableName]: 'PartnerApi-sandbox-DataTable-XYZ',
  [STACK_OUTPUTS.sealingSecretArn]: 'arn:aws:secretsmanager:eu-west-1:123456789012:secret:SealingSecret-abc',
  [STACK_OUTPUTS.usagePlanId]: 'plan123',
  [STACK_OUTPUTS.mailFrom]: 'Partner Team <partners-sandbox@example.com>',
  [STACK_OUTPUTS.accessLogGroupName]: 'PartnerApi-sandbox-PartnerApiAccessLog-abc',
  [STACK_OUTPUTS.eventBusName]: 'partner-api-sandbox-platform-events',
  [STACK_OUTPUTS.outboundEventBusName]: 'partner-api-sandbox-service-events',
  [STACK_OUTPUTS.platformEventsQueueUrl]:
    'https://sqs.eu-west-1.amazonaws.com/123456789012/PartnerApi-sandbox-Queue',
  [STACK_OUTPUTS.platformEventsDeadLetterQueueUrl]:
    'https://sqs.eu-west-1.amazonaws.com/123456789012/PartnerApi-sandbox-DeadLetterQueue',
};

function describedStack(
  outputs: Record<string, string>,
  status: StackStatus = 'UPDATE_COMPLETE',
): Pick<DescribeStacksCommandOutput, 'Stacks'> {
  return {
    Stacks: [
      {
        StackName: 'PartnerApi-sandbox',
        StackStatus: status,
        CreationTime: new Date(0),
        Outputs: Object.entries(outputs).map(([OutputKey, OutputValue]) => ({ OutputKey, OutputValue })),
      },
    ],
  };
}

const savedEnvironment = { ...process.env };
const client = () => new CloudFormationClient({ region: 'eu-west-1' });

beforeEach(() => {
  cloudFormation.reset();
  apiGateway.reset();
  ses.reset();
  sts.reset();
  sts.on(GetCallerIdentityCommand).resolves({ Arn: OPERATOR_ARN });
});
afterEach(() => {
  process.env = { ...savedEnvironment };
});

describe('deployedTarget', () => {
  it('points the data modules at the stack, with nothing local, and writes no environment variable', async () => {
    cloudFormation
      .on(DescribeStacksCommand, { StackName: 'PartnerApi-sandbox' })
      .resolves(describedStack(OUTPUTS));
    useServiceEnvironment({
      STAGE: 'local',
      TABLE_NAME: 'partner-api-local',
      DYNAMODB_ENDPOINT: 'http://127.0.0.1:8000',
      AWS_ENDPOINT_URL_SECRETS_MANAGER: 'http://127.0.0.1:8001',
    });
    const environmentBefore = { ...process.env };

    const target = await deployedTarget('sandbox', client());

    expect(target.stage).toBe('sandbox');
    expect(target.actor).toBe(OPERATOR_ARN);
    expect(target.activationBaseUrl).toBe(OUTPUTS.ActivationBaseUrl);
    expect(target.usagePlanKeys).toBeDefined();
    expect(serviceConfig()).toEqual({
      stage: 'sandbox',
      tableName: OUTPUTS.TableName,
      secretArns: { sealing: OUTPUTS.SealingSecretArn },
      queueUrls: {
        platformEvents: OUTPUTS.PlatformEventsQueueUrl,
        platformEventsDeadLetter: OUTPUTS.PlatformEventsDeadLetterQueueUrl,
      },
      eventBusName: OUTPUTS.EventBusName,
      outboundEventBusName: OUTPUTS.OutboundEventBusName,
      // The stage's own runtime settings, as its functions have them.
      ...runtimeSettingsOf(stageSettings.sandbox),
    });
    expect(process.env).toEqual(environmentBefore);
  });

  it('says how to deploy when the stack does not exist', async () => {
    const missing = Object.assign(new Error('Stack with id PartnerApi-sandbox does not exist'), {
      name: 'ValidationError',
    });
    cloudFormation.on(DescribeStacksCommand).rejects(missing);

    const attempt = deployedTarget('sandbox', client());

    await expect(attempt).rejects.toThrow(OperatorError);
    await expect(attempt).rejects.toThrow(/not deployed in eu-west-1.*npx cdk deploy PartnerApi-sandbox/);
  });

  it('names the outputs a stack lacks, and acts on nothing of it', async () => {
    const { UsagePlanId: _omitted, ...older } = OUTPUTS;
    cloudFormation.on(DescribeStacksCommand).resolves(describedStack(older));
    useServiceEnvironment({ STAGE: 'local', TABLE_NAME: 'partner-api-local' });

    await expect(deployedTarget('sandbox', client())).rejects.toThrow(/no output UsagePlanId/);
    expect(serviceConfig().tableName).not.toBe(OUTPUTS.TableName);
  });

  it('refuses a stack that is still deploying or failed', async () => {
    cloudFormation.on(DescribeStacksCommand).resolves(describedStack(OUTPUTS, 'ROLLBACK_COMPLETE'));

    await expect(deployedTarget('sandbox', client())).rejects.toThrow(/is ROLLBACK_COMPLETE/);
  });
});

describe('usage-plan keys', () => {
  it('creates an enabled key named after the prefix and attaches it to the plan', async () => {
    apiGateway.on(CreateApiKeyCommand).resolves({ id: 'key-1' });
    apiGateway.on(CreateUsagePlanKeyCommand).resolves({});

    const value = await apiGatewayUsagePlanKeys(
      'plan123',
      new APIGatewayClient({ region: 'eu-west-1' }),
    ).issue('svc_AbCdEfGh', 'demo-pms');

    expect(value).toMatch(/^[A-Za-z0-9]{40}$/);
    const created = apiGateway.commandCalls(CreateApiKeyCommand)[0]?.args[0].input;
    expect(created).toMatchObject({ name: 'partner-svc_AbCdEfGh', enabled: true, value });
    expect(created?.description).toContain('demo-pms');
    expect(apiGateway.commandCalls(CreateUsagePlanKeyCommand)[0]?.args[0].input).toEqual({
      usagePlanId: 'plan123',
      keyId: 'key-1',
      keyType: 'API_KEY',
    });
  });

  it('deletes the new key again when it cannot join the plan', async () => {
    apiGateway.on(CreateApiKeyCommand).resolves({ id: 'key-1' });
    apiGateway.on(CreateUsagePlanKeyCommand).rejects(new Error('NotFoundException'));
    apiGateway.on(DeleteApiKeyCommand).resolves({});

    const keys = apiGatewayUsagePlanKeys('plan123', new APIGatewayClient({ region: 'eu-west-1' }));

    await expect(keys.issue('svc_AbCdEfGh', 'demo-pms')).rejects.toThrow('NotFoundException');
    expect(apiGateway.commandCalls(DeleteApiKeyCommand)[0]?.args[0].input).toEqual({ apiKey: 'key-1' });
  });

  it('deletes the key with exactly that name, across pages (which takes it out of the plan)', async () => {
    apiGateway
      .on(GetApiKeysCommand)
      .resolvesOnce({
        items: [{ id: 'other', name: 'partner-svc_AbCdEfGhX', enabled: true }],
        position: 'p2',
      })
      .resolvesOnce({ items: [{ id: 'key-1', name: 'partner-svc_AbCdEfGh', enabled: true }] });
    apiGateway.on(DeleteApiKeyCommand).resolves({});

    await apiGatewayUsagePlanKeys('plan123', new APIGatewayClient({ region: 'eu-west-1' })).remove(
      'svc_AbCdEfGh',
    );

    const deletions = apiGateway.commandCalls(DeleteApiKeyCommand).map((call) => call.args[0].input);
    expect(deletions).toEqual([{ apiKey: 'key-1' }]);
    expect(apiGateway.commandCalls(GetApiKeysCommand)[1]?.args[0].input.position).toBe('p2');
  });
});

describe('SES mailer', () => {
  it('sends a text message from the stage sender and returns the message id', async () => {
    ses.on(SendEmailCommand).resolves({ MessageId: 'msg-1' });

    const receipt = await sesMailer(OUTPUTS.MailFrom, new SESv2Client({ region: 'eu-west-1' })).send({
      to: 'partner@example.org',
      subject: 'Your partner API key',
      text: 'Open this link',
    });

    expect(receipt).toEqual({ delivery: 'ses', messageId: 'msg-1' });
    expect(ses.commandCalls(SendEmailCommand)[0]?.args[0].input).toMatchObject({
      FromEmailAddress: OUTPUTS.MailFrom,
      Destination: { ToAddresses: ['partner@example.org'] },
      Content: {
        Simple: { Subject: { Data: 'Your partner API key' }, Body: { Text: { Data: 'Open this link' } } },
      },
    });
  });
});

describe('SES mailer: the check before anything is issued', () => {
  const mailer = () => sesMailer(OUTPUTS.MailFrom, new SESv2Client({ region: 'eu-west-1' }));
  const notFound = () => Object.assign(new Error('Identity not found'), { name: 'NotFoundException' });

  it('passes a verified sender, through its domain too, outside the SES sandbox', async () => {
    ses
      .on(GetEmailIdentityCommand, { EmailIdentity: 'partners-sandbox@example.com' })
      .rejects(notFound())
      .on(GetEmailIdentityCommand, { EmailIdentity: 'example.com' })
      .resolves({ VerifiedForSendingStatus: true });
    ses.on(GetAccountCommand).resolves({ ProductionAccessEnabled: true });

    expect(await mailer().check?.('partner@example.org')).toEqual([]);
  });

  it('names an unverified sender, and a recipient the SES sandbox would refuse', async () => {
    ses.on(GetEmailIdentityCommand).rejects(notFound());
    ses.on(GetAccountCommand).resolves({ ProductionAccessEnabled: false });

    const problems = (await mailer().check?.('partner@example.org')) ?? [];

    expect(problems).toHaveLength(2);
    expect(problems[0]).toContain('partners-sandbox@example.com is not a verified SES identity in eu-west-1');
    expect(problems[1]).toContain('sandbox');
    expect(problems[1]).toContain('partner@example.org');
    expect(ses.commandCalls(SendEmailCommand)).toHaveLength(0);
  });
});
