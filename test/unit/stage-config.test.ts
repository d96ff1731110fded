import { afterEach, describe, expect, it } from 'vitest';
import type { RuntimeSettings } from '../../core/runtime-settings';
import { DEFAULT_RUNTIME_SETTINGS, RUNTIME_SETTINGS, runtimeEnvironment } from '../../core/runtime-settings';
import type { DeployedStage } from '../../core/stages';
import { DEPLOYED_STAGES } from '../../core/stages';
import { serviceConfig, useServiceEnvironment } from '../../lambdas/common/config';
import {
  customDomainOf,
  rollbackAlarmsOf,
  senderAddress,
  stageConfig,
  stageSettings,
  withExecuteApi,
} from '../../lib/stage-config';

const TOPIC = 'arn:aws:sns:eu-west-1:123456789012:ops-alarms';
const DOMAIN = {
  apiDomain: 'api.hostly.io',
  pagesDomain: 'go.hostly.io',
  certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/0f8e3a52-9d1c-4c1b-b0a4-6f2d7e8c9a10',
};
/** A vault of the example account in another region than the certificate's (eu-west-1). */
const COPY_VAULT = 'arn:aws:backup:eu-central-1:123456789012:backup-vault:partner-api-copies';
/** What production requires besides its sender. */
const REQUIRED = { alarmTopicArn: TOPIC, customDomain: DOMAIN, backupCopyVaultArn: COPY_VAULT };
/** What a stage requires, or takes: the sandbox keeps no backups, so it takes no vault to copy them to. */
const requiredOf = (stage: DeployedStage) => {
  const { backupCopyVaultArn, ...rest } = REQUIRED;
  return stage === 'production' ? { ...rest, backupCopyVaultArn } : rest;
};

describe('stage configuration', () => {
  it('takes the mail sender from the deployment, never from a default', () => {
    const config = stageConfig('production', { mailFrom: 'Partner Team <partners@hostly.io>', ...REQUIRED });

    expect(config.mailFrom).toBe('Partner Team <partners@hostly.io>');
    expect(Object.values(stageSettings).some((settings) => 'mailFrom' in settings)).toBe(false);
  });

  it.each([
    'Partner Team <partners@example.com>',
    'partners@example.org',
    'ops@partner-api.test',
    'ops@mail.invalid',
  ])('refuses the placeholder %s as the production sender', (mailFrom) => {
    expect(() => stageConfig('production', { mailFrom, ...REQUIRED })).toThrow(/placeholder/);
  });

  it('lets the sandbox send from a test domain, but never from something that is not an address', () => {
    expect(stageConfig('sandbox', { mailFrom: 'partners-sandbox@example.com' }).stage).toBe('sandbox');
    expect(() => stageConfig('sandbox', { mailFrom: 'Partner Team' })).toThrow(/not an e-mail address/);
  });

  it('reads the address out of a display-name sender', () => {
    expect(senderAddress('Partner Team <partners@hostly.io>')).toBe('partners@hostly.io');
    expect(senderAddress('partners@hostly.io')).toBe('partners@hostly.io');
  });

  it('refuses production without its alarm topic and custom domain, naming both at once with the docs', () => {
    expect(() => stageConfig('production', { mailFrom: 'partners@hostly.io' })).toThrow(
      /^production needs what only a deployment can give: the SNS topic its alarms notify \(-c alarmTopicArn:production=.*\); the names its links use, .*\(-c apiDomain:production=.* -c pagesDomain:production=.* -c certificateArn:production=.*\)\. Through npm: .*npm run synth:example \(docs\/deploying\.md#synthesize\)\.$/,
    );
    const copies = { backupCopyVaultArn: COPY_VAULT };
    expect(() =>
      stageConfig('production', { mailFrom: 'partners@hostly.io', alarmTopicArn: TOPIC, ...copies }),
    ).toThrow(/^production needs what only a deployment can give: the names its links use/);
    expect(() =>
      stageConfig('production', { mailFrom: 'partners@hostly.io', customDomain: DOMAIN, ...copies }),
    ).toThrow(
      /^production needs what only a deployment can give: the SNS topic its alarms notify \([^;]*\)\. Through/,
    );
    expect(stageConfig('production', { mailFrom: 'partners@hostly.io', ...REQUIRED })).toMatchObject(
      REQUIRED,
    );
  });

  it('takes a custom domain on the sandbox too, and its names in lowercase', () => {
    expect(stageConfig('sandbox', { mailFrom: 'partners@hostly.io' }).customDomain).toBeUndefined();
    expect(
      stageConfig('sandbox', {
        mailFrom: 'partners@hostly.io',
        customDomain: { ...DOMAIN, apiDomain: 'API.Sandbox.Hostly.io' },
      }).customDomain,
    ).toEqual({ ...DOMAIN, apiDomain: 'api.sandbox.hostly.io' });
  });

  it.each([
    [{ apiDomain: 'https://api.hostly.io' }, /apiDomain of \w+ is not a DNS name API Gateway can serve/],
    [{ pagesDomain: 'go.hostly.io/activate' }, /pagesDomain of \w+ is not a DNS name/],
    [{ apiDomain: '*.hostly.io' }, /apiDomain of \w+ is not a DNS name/],
    [{ apiDomain: 'hostly' }, /apiDomain of \w+ is not a DNS name/],
    [{ apiDomain: `${'a'.repeat(64)}.hostly.io` }, /apiDomain of \w+ is not a DNS name/],
    [{ apiDomain: 'abc123.execute-api.eu-west-1.amazonaws.com' }, /apiDomain of \w+ is an AWS address/],
    [
      { pagesDomain: 'api.hostly.io' },
      /apiDomain and pagesDomain of \w+ are the same name \(api\.hostly\.io\)/,
    ],
    [
      { certificateArn: 'arn:aws:acm:eu-west-1:123456789012:certificate/abc' },
      /certificateArn of \w+ is not an ACM certificate ARN/,
    ],
    [
      { certificateArn: 'arn:aws:iam::123456789012:server-certificate/hostly' },
      /certificateArn of \w+ is not an ACM certificate ARN/,
    ],
  ])('refuses the custom domain %o on any stage, in one line', (change, message) => {
    for (const stage of DEPLOYED_STAGES)
      expect(() =>
        stageConfig(stage, {
          mailFrom: 'partners@hostly.io',
          ...requiredOf(stage),
          customDomain: { ...DOMAIN, ...change },
        }),
      ).toThrow(message);
  });

  it('refuses a placeholder name in production, and lets the sandbox use one', () => {
    const customDomain = { ...DOMAIN, pagesDomain: 'go.example.com' };
    expect(() =>
      stageConfig('production', { mailFrom: 'partners@hostly.io', ...REQUIRED, customDomain }),
    ).toThrow(
      'pagesDomain of production is a placeholder (go.example.com): give the name partners and hosts will see.',
    );
    expect(stageConfig('sandbox', { mailFrom: 'partners@hostly.io', customDomain }).customDomain).toEqual(
      customDomain,
    );
  });

  it('takes an IDN top-level domain, and a name in its fully qualified form (final dot) as the same name', () => {
    const customDomain = {
      ...DOMAIN,
      apiDomain: 'api.xn--80ak6aa92e.xn--p1ai',
      pagesDomain: 'Go.Hostly.io.',
    };
    expect(
      stageConfig('production', { mailFrom: 'partners@hostly.io', ...REQUIRED, customDomain }).customDomain,
    ).toEqual({
      ...customDomain,
      pagesDomain: 'go.hostly.io',
    });
  });

  it.each([
    'abc.cloudfront.net',
    'x.execute-api.cn-north-1.amazonaws.com.cn',
    'abc.lambda-url.eu-west-1.on.aws',
  ])('refuses the AWS name %s', (apiDomain) => {
    expect(() =>
      stageConfig('sandbox', { mailFrom: 'partners@hostly.io', customDomain: { ...DOMAIN, apiDomain } }),
    ).toThrow(/apiDomain of sandbox is an AWS address/);
  });

  it('turns the execute-api addresses off beside the names only when asked, and only with names', () => {
    expect(withExecuteApi('production', DOMAIN, undefined)).toEqual(DOMAIN);
    expect(withExecuteApi('production', DOMAIN, 'off')).toEqual({ ...DOMAIN, executeApi: 'off' });
    expect(withExecuteApi('production', DOMAIN, 'on')).toEqual({ ...DOMAIN, executeApi: 'on' });
    expect(() => withExecuteApi('production', DOMAIN, 'false')).toThrow(
      'executeApi of production is on or off, not "false".',
    );
    expect(() => withExecuteApi('sandbox', undefined, 'off')).toThrow(
      /executeApi of sandbox turns the execute-api addresses on or off beside a custom domain; sandbox has none/,
    );
  });

  it('shifts production gradually and the sandbox at once, watching the alarms unless a deploy says ignore', () => {
    expect(stageSettings.production.trafficShifting).toBe('canary-10-percent-5-minutes');
    expect(stageSettings.sandbox.trafficShifting).toBe('all-at-once');
    expect(rollbackAlarmsOf('production', undefined)).toBeUndefined();
    expect(rollbackAlarmsOf('production', 'ignore')).toBe('ignore');
    expect(rollbackAlarmsOf('sandbox', 'watch')).toBe('watch');
    expect(() => rollbackAlarmsOf('production', 'off')).toThrow(
      'rollbackAlarms of production is watch or ignore, not "off" (docs/deploying.md#safe-deployments).',
    );
    expect(
      stageConfig('production', { mailFrom: 'partners@hostly.io', ...REQUIRED, rollbackAlarms: 'ignore' }),
    ).toMatchObject({
      rollbackAlarms: 'ignore',
    });
  });

  it('takes a custom domain from its three context values together or not at all', () => {
    expect(customDomainOf('sandbox', {})).toBeUndefined();
    expect(customDomainOf('sandbox', DOMAIN)).toEqual(DOMAIN);
    expect(() => customDomainOf('production', { certificateArn: DOMAIN.certificateArn })).toThrow(
      'apiDomain, pagesDomain, certificateArn of production go together: -c apiDomain:production=… and -c pagesDomain:production=… missing (docs/deploying.md#custom-domain).',
    );
  });

  it('refuses production without a vault to copy its backups to, in the same line as the rest', () => {
    const { backupCopyVaultArn: _vault, ...withoutVault } = REQUIRED;
    expect(() => stageConfig('production', { mailFrom: 'partners@hostly.io', ...withoutVault })).toThrow(
      'production needs what only a deployment can give: the vault in another region or account its backups are copied to (-c backupCopyVaultArn:production=arn:aws:backup:<region>:<account>:backup-vault:<name>). Through npm: npm run synth -- <these flags>; with example values: npm run synth:example (docs/deploying.md#synthesize).',
    );
    expect(() => stageConfig('production', { mailFrom: 'partners@hostly.io' })).toThrow(
      /alarmTopicArn:production=.*; the names its links use, .*; the vault in another region or account its backups are copied to \(-c backupCopyVaultArn:production=/,
    );
  });

  it.each([
    [
      'another region of the same account',
      'arn:aws:backup:eu-central-1:123456789012:backup-vault:partner-api-copies',
    ],
    [
      'another account in the same region',
      'arn:aws:backup:eu-west-1:210987654321:backup-vault:partner-api-copies',
    ],
    ['the GovCloud partition', 'arn:aws-us-gov:backup:us-gov-west-1:210987654321:backup-vault:copies_2'],
  ])('copies production’s backups to a vault in %s', (_where, backupCopyVaultArn) => {
    expect(
      stageConfig('production', { mailFrom: 'partners@hostly.io', ...REQUIRED, backupCopyVaultArn })
        .backupCopyVaultArn,
    ).toBe(backupCopyVaultArn);
  });

  it('refuses a copy vault in the region of the stage’s certificate and the account of its alarm topic', () => {
    expect(() =>
      stageConfig('production', {
        mailFrom: 'partners@hostly.io',
        ...REQUIRED,
        backupCopyVaultArn: 'arn:aws:backup:eu-west-1:123456789012:backup-vault:partner-api-copies',
      }),
    ).toThrow(
      "backupCopyVaultArn of production is in the stage's own region and account (eu-west-1, 123456789012: those of its certificate and alarm topic), where a copy goes with what it should survive: give a vault in another region or account (docs/deploying.md#backups-of-the-production-table).",
    );
  });

  it.each([
    'partner-api-copies',
    'arn:aws:backup:eu-central-1:123456789012:recovery-point:1EB3B5E7-9EB0-435A-A80B-108B488B0D45',
    'arn:aws:backup:eu-central-1:1234:backup-vault:partner-api-copies',
    'arn:aws:backup:eu-central-1:123456789012:backup-vault:x',
    'arn:aws:backup:eu-central-1:123456789012:backup-vault:partner api copies',
    'arn:aws:s3:::partner-api-copies',
  ])('refuses %s as the copy vault, naming the form it takes', (backupCopyVaultArn) => {
    expect(() =>
      stageConfig('production', { mailFrom: 'partners@hostly.io', ...REQUIRED, backupCopyVaultArn }),
    ).toThrow(
      `backupCopyVaultArn of production is not an AWS Backup vault ARN: "${backupCopyVaultArn}" (arn:aws:backup:<region>:<account>:backup-vault:<name>, in another region or account).`,
    );
  });

  it('refuses a copy vault on the sandbox, which keeps no backups to copy', () => {
    expect(() =>
      stageConfig('sandbox', { mailFrom: 'partners@hostly.io', backupCopyVaultArn: COPY_VAULT }),
    ).toThrow(
      'backupCopyVaultArn of sandbox: sandbox keeps no AWS Backup of its table (tableBackup in lib/stage-config.ts), so there is nothing to copy.',
    );
  });

  it('budgets sandbox $50 and production $250 a month, as docs/deploying.md reasons from what each costs', () => {
    expect(stageSettings.sandbox.monthlyBudgetUsd).toBe(50);
    expect(stageSettings.production.monthlyBudgetUsd).toBe(250);
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
      expect(() =>
        stageConfig(stage, { mailFrom: 'partners@hostly.io', ...requiredOf(stage), alarmTopicArn }),
      ).toThrow(/is not an SNS topic ARN/);
  });

  it.each(['*', '1234', 'arn:aws:iam::123456789012:user/platform', 'arn:awsfake:iam::123456789012:role/p'])(
    'refuses %s as a publisher of the platform’s events, in one line before anything is built',
    (publisher) => {
      for (const stage of DEPLOYED_STAGES)
        expect(() =>
          stageConfig(stage, {
            mailFrom: 'partners@hostly.io',
            ...requiredOf(stage),
            platformEventPublishers: ['123456789012', publisher],
          }),
        ).toThrow(/platformEventPublishers of \w+ must be AWS account ids \(12 digits\) or IAM role ARNs/);
    },
  );

  it('forwards to a platform bus of another account or Region, given as an event bus ARN', () => {
    const bus = 'arn:aws:events:us-east-1:210987654321:event-bus/host-platform/v1.events-in_2';
    for (const stage of DEPLOYED_STAGES)
      expect(
        stageConfig(stage, { mailFrom: 'partners@hostly.io', ...requiredOf(stage), platformEventBus: bus })
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
        stageConfig(stage, { mailFrom: 'partners@hostly.io', ...requiredOf(stage), platformEventBus }),
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
    expect(production.customDomainRequired).toBe(true);
    expect(sandbox).toMatchObject({
      customDomainRequired: false,
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
