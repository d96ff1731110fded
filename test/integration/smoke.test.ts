import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { approvedPartner, sponsoredProperty } from '../support/partners';

const run = promisify(execFile);

/** `npm run smoke` as an operator runs it against a stage, here against the local server. */
async function smoke(key: string) {
  try {
    const { stdout } = await run('npx', ['tsx', 'bin/smoke.ts', '--base-url', inject('apiBaseUrl')], {
      env: { ...process.env, PARTNER_API_KEY: key },
    });
    return { code: 0, stdout };
  } catch (error) {
    const failed = error as { code: number; stdout: string };
    return { code: failed.code, stdout: failed.stdout };
  }
}

describe('the smoke check of a deployed stage (bin/smoke.ts)', () => {
  it('passes every check against a stage that answers as the stack does, with a revenue key', async () => {
    const partner = await approvedPartner({ revenue: true });
    await sponsoredProperty(partner.id);

    const { code, stdout } = await smoke(partner.key);

    expect(stdout).toMatch(/All \d+ checks passed\./);
    expect(stdout).not.toContain('FAIL');
    expect(stdout).not.toContain('SKIP');
    expect(code).toBe(0);
  });

  it('fails (exit 1) when the key does not work, naming the failed checks', async () => {
    const { code, stdout } = await smoke(`svc_${'A'.repeat(46)}`);

    expect(code).toBe(1);
    expect(stdout).toMatch(/^FAIL {2}GET \/usage: 401 \(expected 200\); unexpected status {2}-> look at: /m);
  });
});
