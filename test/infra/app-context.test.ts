import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ALARM_TOPIC_ARN, TEST_BACKUP_COPY_VAULT_ARN, TEST_CUSTOM_DOMAIN } from './app-synthesis';

let outdir = '';

beforeAll(async () => {
  outdir = await mkdtemp(join(tmpdir(), 'partner-api-app-context-'));
});

afterAll(async () => {
  await rm(outdir, { recursive: true, force: true });
});

/** `bin/app.ts` as `cdk synth` runs it: the context in CDK_CONTEXT_JSON, the assembly in CDK_OUTDIR. */
function synth(context: Record<string, string>): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'bin/app.ts'],
      { env: { ...process.env, CDK_CONTEXT_JSON: JSON.stringify(context), CDK_OUTDIR: outdir } },
      (error, _stdout, stderr) => {
        resolve({ code: error ? Number((error as { code?: unknown }).code ?? 1) : 0, stderr: stderr.trim() });
      },
    );
  });
}

const PRODUCTION_NEEDS =
  'PartnerApi-production cannot be synthesized: production needs what only a deployment can give: ' +
  'the SNS topic its alarms notify (-c alarmTopicArn:production=arn:aws:sns:<region>:<account>:<topic>); ' +
  'the names its links use, on one ACM certificate of its region (-c apiDomain:production=api.<your-domain> ' +
  '-c pagesDomain:production=<pages>.<your-domain> -c certificateArn:production=arn:aws:acm:<region>:<account>:certificate/<id>); ' +
  'the vault in another region or account its backups are copied to ' +
  '(-c backupCopyVaultArn:production=arn:aws:backup:<region>:<account>:backup-vault:<name>). ' +
  'Through npm: npm run synth -- <these flags>; with example values: npm run synth:example (docs/deploying.md#synthesize).';

/** The `-c` flags of `npm run synth:example` beyond `npm run synth`'s, as `key=value`. */
function exampleContext(): Record<string, string> {
  const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> };
  const example = scripts['synth:example'] ?? '';
  expect(example).toMatch(/^npm run synth -- /);
  return Object.fromEntries(
    [...example.matchAll(/-c (\S+?)=(\S+)/g)].map((match) => [match[1] ?? '', match[2] ?? '']),
  );
}

describe('what a deployment gives bin/app.ts for production and sandbox', () => {
  it('names everything production lacks in one line, with the flags and the docs, before building any stack', async () => {
    // What `npm run synth` gives the app: both senders, no alarm topic, no custom domain.
    const result = await synth({
      'mailFrom:sandbox': 'partners-sandbox@example.com',
      'mailFrom:production': 'partners@partner-api.dev',
    });

    expect(result.code).toBe(1);
    // No bundling output before it: the sandbox stack was not built either.
    expect(result.stderr.split('\n')).toEqual([PRODUCTION_NEEDS]);
  });

  it('is left out of `npm run synth` itself, given with example values by `npm run synth:example`, which the tests use', () => {
    const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as {
      scripts: Record<string, string>;
    };

    // Plain `npm run synth` fails with the line above until a deployment gives what production needs.
    expect(scripts.synth).not.toMatch(
      /alarmTopicArn|apiDomain|pagesDomain|certificateArn|backupCopyVaultArn/,
    );
    expect(exampleContext()).toEqual({
      'alarmTopicArn:production': TEST_ALARM_TOPIC_ARN,
      'apiDomain:production': TEST_CUSTOM_DOMAIN.apiDomain,
      'pagesDomain:production': TEST_CUSTOM_DOMAIN.pagesDomain,
      'certificateArn:production': TEST_CUSTOM_DOMAIN.certificateArn,
      'backupCopyVaultArn:production': TEST_BACKUP_COPY_VAULT_ARN,
    });
    expect(scripts['test:deployed']).toMatch(/^npm run synth:example && /);
  });

  it('refuses a value that is not an SNS topic ARN, on sandbox too', async () => {
    const result = await synth({
      'mailFrom:sandbox': 'partners-sandbox@example.com',
      'alarmTopicArn:sandbox': 'ops-alarms',
    });

    expect(result.code).toBe(1);
    expect(result.stderr.split('\n').at(-1)).toBe(
      'PartnerApi-sandbox cannot be synthesized: alarmTopicArn of sandbox is not an SNS topic ARN: "ops-alarms" (arn:aws:sns:<region>:<account>:<topic>).',
    );
  });
});

describe('the custom domain given to bin/app.ts', () => {
  it('refuses some of its three settings without the others, naming what is missing', async () => {
    const result = await synth({
      'mailFrom:sandbox': 'partners-sandbox@example.com',
      'apiDomain:sandbox': 'api.sandbox.hostly.io',
    });

    expect(result.code).toBe(1);
    expect(result.stderr.split('\n')).toEqual([
      'PartnerApi-sandbox cannot be synthesized: apiDomain, pagesDomain, certificateArn of sandbox go together: -c pagesDomain:sandbox=… and -c certificateArn:sandbox=… missing (docs/deploying.md#custom-domain).',
    ]);
  });

  it('refuses a name that is a URL, in one line', async () => {
    const result = await synth({
      'mailFrom:sandbox': 'partners-sandbox@example.com',
      'apiDomain:sandbox': 'https://api.sandbox.hostly.io/',
      'pagesDomain:sandbox': 'go.sandbox.hostly.io',
      'certificateArn:sandbox': TEST_CUSTOM_DOMAIN.certificateArn,
    });

    expect(result.code).toBe(1);
    expect(result.stderr.split('\n')).toEqual([
      'PartnerApi-sandbox cannot be synthesized: apiDomain of sandbox is not a DNS name API Gateway can serve: "https://api.sandbox.hostly.io/" (lowercase labels such as api.your-domain.com, no scheme, path or wildcard).',
    ]);
  });
});

describe('custom domains of both stages', () => {
  it('refuses a name given to both stages, in one line', async () => {
    const result = await synth({
      'mailFrom:sandbox': 'partners-sandbox@example.com',
      'mailFrom:production': 'partners@partner-api.dev',
      'alarmTopicArn:production': TEST_ALARM_TOPIC_ARN,
      'backupCopyVaultArn:production': TEST_BACKUP_COPY_VAULT_ARN,
      ...Object.fromEntries(
        (['sandbox', 'production'] as const).flatMap((stage) => [
          [`apiDomain:${stage}`, TEST_CUSTOM_DOMAIN.apiDomain],
          [`pagesDomain:${stage}`, `${stage}.partner-api.dev`],
          [`certificateArn:${stage}`, TEST_CUSTOM_DOMAIN.certificateArn],
        ]),
      ),
    });

    expect(result.code).toBe(1);
    expect(result.stderr.split('\n')).toEqual([
      `PartnerApi-production cannot be synthesized: sandbox and production are given the same name (${TEST_CUSTOM_DOMAIN.apiDomain}); each stage needs names of its own (docs/deploying.md#custom-domain).`,
    ]);
  });
});

describe('the platform bus given to bin/app.ts', () => {
  it('refuses a value that is not an event bus ARN in one line, before building any stack', async () => {
    const result = await synth({
      'mailFrom:sandbox': 'partners-sandbox@example.com',
      'platformEventBus:sandbox': 'host-platform',
    });

    expect(result.code).toBe(1);
    // No bundling output before it, and nothing of production after it: the app ends at the first refusal.
    expect(result.stderr.split('\n')).toEqual([
      'PartnerApi-sandbox cannot be synthesized: platformEventBus of sandbox is not an EventBridge event bus ARN: "host-platform" (arn:aws:events:<region>:<account>:event-bus/<name>).',
    ]);
  });
});

describe('the backup copy vault given to bin/app.ts', () => {
  it('refuses one in the region of production’s certificate and the account of its alarm topic, in one line', async () => {
    const sameRegion = TEST_BACKUP_COPY_VAULT_ARN.replace(':eu-central-1:', ':eu-west-1:');
    const result = await synth({
      'mailFrom:production': 'partners@partner-api.dev',
      'alarmTopicArn:production': TEST_ALARM_TOPIC_ARN,
      ...Object.fromEntries(
        Object.entries(TEST_CUSTOM_DOMAIN).map(([key, value]) => [`${key}:production`, value]),
      ),
      'backupCopyVaultArn:production': sameRegion,
    });

    expect(result.code).toBe(1);
    expect(result.stderr.split('\n').at(-1)).toBe(
      "PartnerApi-production cannot be synthesized: backupCopyVaultArn of production is in the stage's own region and account (eu-west-1, 123456789012: those of its certificate and alarm topic), where a copy goes with what it should survive: give a vault in another region or account (docs/deploying.md#backups-of-the-production-table).",
    );
  });
});

describe('the mail senders given to bin/app.ts', () => {
  it('refuses a placeholder production sender in one line, as it names a missing one', async () => {
    const result = await synth({ 'mailFrom:production': 'Partner Team <partners@example.com>' });

    expect(result.code).toBe(1);
    expect(result.stderr.split('\n')).toEqual([
      'PartnerApi-sandbox is not in this app: give its mail sender, e.g. -c mailFrom:sandbox="Partner Team <partners@your-domain>" (docs/deploying.md).',
      'PartnerApi-production cannot be synthesized: mailFrom of production is a placeholder (partners@example.com): give the verified SES sender partners mail comes from.',
    ]);
  });
});
