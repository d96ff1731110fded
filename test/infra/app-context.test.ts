import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TEST_ALARM_TOPIC_ARN } from './app-synthesis';

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

describe('the alarm topic given to bin/app.ts', () => {
  it('refuses production without one in one line naming the context key and the docs, before building any stack', async () => {
    // What `npm run synth` gives the app: both senders, no alarm topic.
    const result = await synth({
      'mailFrom:sandbox': 'partners-sandbox@example.com',
      'mailFrom:production': 'partners@partner-api.dev',
    });

    expect(result.code).toBe(1);
    // No bundling output before it: the sandbox stack was not built either.
    expect(result.stderr.split('\n')).toEqual([
      'PartnerApi-production cannot be synthesized: alarmTopicArn of production is required: give the SNS topic its alarms notify with -c alarmTopicArn:production=arn:aws:sns:<region>:<account>:<topic> (through npm: npm run synth -- -c alarmTopicArn:production=…; docs/deploying.md#synthesize).',
    ]);
  });

  it('is left out of `npm run synth` itself, and given by the scripts that synthesize to test', () => {
    const { scripts } = JSON.parse(readFileSync('package.json', 'utf8')) as {
      scripts: Record<string, string>;
    };

    // Plain `npm run synth` fails with the line above until a deployment gives its topic.
    expect(scripts.synth).not.toMatch(/alarmTopicArn/);
    expect(scripts['test:deployed']).toMatch(
      new RegExp(`^npm run synth -- -c alarmTopicArn:production=${TEST_ALARM_TOPIC_ARN} && `),
    );
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
