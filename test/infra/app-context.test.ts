import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

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
