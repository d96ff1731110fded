import { afterEach, describe, expect, it } from 'vitest';
import type { RuntimeSettings } from '../../core/runtime-settings';
import { DEFAULT_RUNTIME_SETTINGS, RUNTIME_SETTINGS, runtimeEnvironment } from '../../core/runtime-settings';
import { DEPLOYED_STAGES } from '../../core/stages';
import { serviceConfig, useServiceEnvironment } from '../../lambdas/common/config';
import { senderAddress, stageConfig, stageSettings } from '../../lib/stage-config';

const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:ops-alarms';

describe('stage configuration', () => {
  it('takes the mail sender from the deployment, never from a default', () => {
    const config = stageConfig('production', {
      mailFrom: 'Partner Team <partners@hostly.io>',
      alarmTopicArn: TOPIC,
    });

    expect(config.mailFrom).toBe('Partner Team <partners@hostly.io>');
    expect(Object.values(stageSettings).some((settings) => 'mailFrom' in settings)).toBe(false);
  });

  it.each([
    'Partner Team <partners@example.com>',
    'partners@example.org',
    'ops@partner-api.test',
    'ops@mail.invalid',
  ])('refuses the placeholder %s as the production sender', (mailFrom) => {
    expect(() => stageConfig('production', { mailFrom, alarmTopicArn: TOPIC })).toThrow(/placeholder/);
  });

  it('lets the sandbox send from a test domain, but never from something that is not an address', () => {
    expect(stageConfig('sandbox', { mailFrom: 'partners-sandbox@example.com' }).stage).toBe('sandbox');
    expect(() => stageConfig('sandbox', { mailFrom: 'Partner Team' })).toThrow(/not an e-mail address/);
  });

  it('reads the address out of a display-name sender', () => {
    expect(senderAddress('Partner Team <partners@hostly.io>')).toBe('partners@hostly.io');
    expect(senderAddress('partners@hostly.io')).toBe('partners@hostly.io');
  });

  it('refuses production without an alarm topic, naming the context key and where it is explained', () => {
    expect(() => stageConfig('production', { mailFrom: 'partners@hostly.io' })).toThrow(
      'alarmTopicArn of production is required: give the SNS topic its alarms notify with -c alarmTopicArn:production=arn:aws:sns:<region>:<account>:<topic> (through npm: npm run synth -- -c alarmTopicArn:production=…; docs/deploying.md#synthesize).',
    );
    expect(
      stageConfig('production', { mailFrom: 'partners@hostly.io', alarmTopicArn: TOPIC }).alarmTopicArn,
    ).toBe(TOPIC);
  });

  it('keeps the alarm topic optional for the sandbox', () => {
    expect(
      stageConfig('sandbox', { mailFrom: 'partners-sandbox@example.com' }).alarmTopicArn,
    ).toBeUndefined();
  });

  it.each([
    'ops-alarms',
    'arn:aws:sns:eu-west-1:1234:ops-alarms',
    'arn:aws:sqs:eu-west-1:123456789012:ops-alarms',
    'arn:aws:sns:eu-west-1:123456789012:ops alarms',
    'arn:awsfake:sns:eu-west-1:123456789012:ops-alarms',
    'arn:aws:sns:x:000000000000:ops-alarms',
  ])('refuses %s as an alarm topic on any stage', (alarmTopicArn) => {
    for (const stage of DEPLOYED_STAGES)
      expect(() => stageConfig(stage, { mailFrom: 'partners@hostly.io', alarmTopicArn })).toThrow(
        /is not an SNS topic ARN/,
      );
  });

  it.each(['*', '1234', 'arn:aws:iam::123456789012:user/platform', 'arn:awsfake:iam::123456789012:role/p'])(
    'refuses %s as a publisher of the platform’s events, in one line before anything is built',
    (publisher) => {
      for (const stage of DEPLOYED_STAGES)
        expect(() =>
          stageConfig(stage, {
            mailFrom: 'partners@hostly.io',
            alarmTopicArn: 'arn:aws:sns:eu-west-1:123456789012:ops-alarms',
            platformEventPublishers: ['123456789012', publisher],
          }),
        ).toThrow(/platformEventPublishers of \w+ must be AWS account ids \(12 digits\) or IAM role ARNs/);
    },
  );

  it('forwards to a platform bus of another account or Region, given as an event bus ARN', () => {
    const bus = 'arn:aws:events:us-east-1:210987654321:event-bus/host-platform/v1.events-in_2';
    for (const stage of DEPLOYED_STAGES)
      expect(
        stageConfig(stage, { mailFrom: 'partners@hostly.io', alarmTopicArn: TOPIC, platformEventBus: bus })
          .platformEventBus,
      ).toBe(bus);
    expect(stageConfig('sandbox', { mailFrom: 'partners@hostly.io' }).platformEventBus).toBeUndefined();
  });

  it.each([
    'host-platform',
    'arn:aws:sns:eu-west-1:210987654321:host-platform',
    'arn:aws:events:eu-west-1:210987654321:rule/host-platform',
    'arn:aws:events:eu-west-1:21098765432:event-bus/host-platform',
    'arn:aws:events:eu-west-1:210987654321:event-bus/',
    'arn:aws:events:eu-west-1:210987654321:event-bus/host platform',
  ])('refuses %s as the platform’s bus, in one line naming the form it takes', (platformEventBus) => {
    for (const stage of DEPLOYED_STAGES)
      expect(() =>
        stageConfig(stage, { mailFrom: 'partners@hostly.io', alarmTopicArn: TOPIC, platformEventBus }),
      ).toThrow(
        `platformEventBus of ${stage} is not an EventBridge event bus ARN: "${platformEventBus}" (arn:aws:events:<region>:<account>:event-bus/<name>).`,
      );
  });

  it('alarms on outbound deliveries later than 5 minutes in production, and on any failure of them there', () => {
    expect(stageSettings.production.alarms).toMatchObject({
      outboundLagSeconds: 300,
      outboundDeliveryFailures: 1,
    });
    expect(stageSettings.sandbox.alarms.outboundLagSeconds).toBeGreaterThanOrEqual(
      stageSettings.production.alarms.outboundLagSeconds,
    );
  });

  it('samples 1 % of production requests with no reservoir, quiets Lambda’s own lines there and backs its table up', () => {
    const { production, sandbox } = stageSettings;

    expect(production.traceSampling).toEqual({ fixedRate: 0.01, reservoirPerSecond: 0 });
    expect(production.lambdaSystemLogLevel).toBe('WARN');
    expect(production.tableBackup).toEqual({ dailyRetentionDays: 35 });
    expect(production.alarmTopicRequired).toBe(true);
    expect(sandbox).toMatchObject({
      traceSampling: 'account-default',
      lambdaSystemLogLevel: 'INFO',
      tableBackup: 'none',
      alarmTopicRequired: false,
    });
  });
});

describe('runtime settings (core/runtime-settings.ts)', () => {
  afterEach(() => useServiceEnvironment(process.env));

  it('reach serviceConfig() from the variables the stack sets, each by its name, with its default when absent', () => {
    const names = Object.keys(RUNTIME_SETTINGS) as (keyof RuntimeSettings)[];
    const given = Object.fromEntries(names.map((name, index) => [name, 1_000 + index])) as RuntimeSettings;

    useServiceEnvironment({ STAGE: 'local', ...runtimeEnvironment(given) });
    expect(serviceConfig()).toMatchObject(given);
    useServiceEnvironment({ STAGE: 'local' });
    expect(serviceConfig()).toMatchObject(DEFAULT_RUNTIME_SETTINGS);
  });

  it('refuse a malformed value, naming its variable', () => {
    for (const { variable } of Object.values(RUNTIME_SETTINGS)) {
      useServiceEnvironment({ STAGE: 'local', [variable]: '12 days' });
      expect(() => serviceConfig()).toThrow(`${variable} must be a positive integer; got "12 days".`);
    }
  });
});
