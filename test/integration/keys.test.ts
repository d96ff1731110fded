import { execFile } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, inject, it } from 'vitest';
import { runCli } from '../../lib/admin/cli';
import { apiGet, approvedPartner, revealKey } from '../support/partners';

/** Runs the operator CLI in-process (same code path as `npm run admin`), capturing its output. */
async function admin(...argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const code = await runCli(argv, { out: (text) => out.push(text), err: (text) => err.push(text) });
  return { code, stdout: out.join('\n'), stderr: err.join('\n') };
}

/** Polls until the API answers `status` for a key, returning the seconds it took. */
async function secondsUntil(key: string, status: number, limitSeconds: number): Promise<number> {
  const started = Date.now();
  for (;;) {
    if ((await apiGet('/usage', key)).status === status) return (Date.now() - started) / 1000;
    if (Date.now() - started > limitSeconds * 1000) throw new Error(`No ${status} within ${limitSeconds} s`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

describe('operator CLI as a real process', () => {
  it('approves a partner whose revealed key works, writes the e-mail to the outbox, and never prints the key', async () => {
    const run = promisify(execFile);
    const slug = `cli-${Date.now().toString(36)}`;

    const { stdout, stderr } = await run(
      'npx',
      [
        'tsx',
        'bin/admin.ts',
        'partners',
        'approve',
        '--name',
        'CLI PMS',
        '--slug',
        slug,
        '--email',
        'ops@cli.example',
        '--products',
        'assistant,checkin',
        '--json',
      ],
      { env: { ...process.env, PARTNER_API_LOCAL_DIR: inject('localDirectory') } },
    );
    const result = JSON.parse(stdout) as Record<string, string>;
    const key = await revealKey(result.reveal_url ?? '');

    expect(Object.keys(result).sort()).toEqual(['key_prefix', 'partner_id', 'reveal_url', 'slug']);
    expect(key.startsWith(result.key_prefix ?? '-')).toBe(true);
    expect(stdout + stderr).not.toContain(key);
    expect((await apiGet('/usage', key)).status).toBe(200);
    expect((await apiGet('/properties', key)).status).toBe(403);
    const outbox = join(inject('localDirectory'), 'outbox');
    const mails = await Promise.all(
      (await readdir(outbox)).map((file) => readFile(join(outbox, file), 'utf8')),
    );
    const mail = mails.find((text) => text.includes(result.reveal_url ?? '-'));
    expect(mail).toContain('To: ops@cli.example');
    expect(mail).toContain(`API base URL: ${inject('apiBaseUrl')}`);
    expect(stderr).toContain('local outbox:');
  });

  it('leaves no key in the local runtime file', async () => {
    const runtime = await readFile(join(inject('localDirectory'), 'runtime.json'), 'utf8');

    expect(runtime).not.toMatch(/svc_[0-9A-Za-z]{46}/);
    expect(runtime).not.toContain(inject('demoKey'));
  });

  it('exits non-zero with a message that says what to fix', async () => {
    const taken = await admin(
      'partners',
      'approve',
      '--name',
      'Dup',
      '--slug',
      'demo-pms',
      '--email',
      'a@b.example',
      '--products',
      'assistant',
    );
    const badProducts = await admin(
      'partners',
      'approve',
      '--name',
      'X',
      '--slug',
      'x-pms',
      '--email',
      'a@b.example',
      '--products',
      'assistant,wifi',
    );
    const missing = await admin('keys', 'rotate');
    const unknownOption = await admin('keys', 'list', '--partner', 'demo-pms', '--colour');

    expect(taken).toMatchObject({ code: 1, stdout: '' });
    expect(taken.stderr).toContain('slug "demo-pms" is taken');
    expect(badProducts.code).toBe(1);
    expect(badProducts.stderr).toContain('Unknown product(s): wifi');
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--partner is required');
    expect(unknownOption.code).toBe(2);
    expect(unknownOption.stderr).toContain("Unknown option '--colour'");
  });

  it('lists partners and keys as one JSON object each', async () => {
    const partners = JSON.parse((await admin('partners', 'list', '--json')).stdout) as {
      partners: { slug: string }[];
    };
    const keys = JSON.parse((await admin('keys', 'list', '--partner', 'demo-pms', '--json')).stdout) as {
      keys: { state: string }[];
    };

    expect(partners.partners.map((p) => p.slug)).toContain('demo-pms');
    expect(keys.keys.some((key) => key.state === 'active')).toBe(true);
  });
});

describe('rotation and revocation', () => {
  it('rotation: both keys work during the grace period, and the new one never has wider scopes', async () => {
    const partner = await approvedPartner({ revenue: false });

    const rotated = await admin('keys', 'rotate', '--partner', partner.slug, '--grace-hours', '2', '--json');
    const result = JSON.parse(rotated.stdout) as Record<string, string>;
    const newKey = await revealKey(result.reveal_url ?? '');

    expect(result.previous_key_prefix).toBe(partner.keyPrefix);
    expect(Date.parse(result.previous_key_expires_at ?? '') - Date.now()).toBeGreaterThan(7_100_000);
    expect((await apiGet('/usage', partner.key)).status).toBe(200);
    expect((await apiGet('/usage', newKey)).status).toBe(200);
    expect((await apiGet('/properties', newKey)).status).toBe(403);
  });

  it('rotation with no grace: the old key expires (401 expired) within 30 s', async () => {
    const partner = await approvedPartner();
    await apiGet('/usage', partner.key);

    const rotated = JSON.parse(
      (await admin('keys', 'rotate', '--partner', partner.slug, '--grace-hours', '0', '--json')).stdout,
    ) as Record<string, string>;

    expect(await secondsUntil(partner.key, 401, 30)).toBeLessThanOrEqual(30);
    expect((await apiGet('/usage', partner.key)).json.type).toContain('expired-api-key');
    expect((await apiGet('/usage', await revealKey(rotated.reveal_url ?? ''))).status).toBe(200);
  });

  it('revocation takes effect within 30 s, even for a key the authorizer has cached', async () => {
    const partner = await approvedPartner();
    expect((await apiGet('/usage', partner.key)).status).toBe(200);

    const revoked = await admin('keys', 'revoke', '--prefix', partner.keyPrefix, '--json');

    expect(JSON.parse(revoked.stdout)).toMatchObject({
      key_prefix: partner.keyPrefix,
      revoked_at: expect.any(String),
    });
    expect(await secondsUntil(partner.key, 401, 30)).toBeLessThanOrEqual(30);
    expect((await apiGet('/usage', partner.key)).json.type).toContain('revoked-api-key');
    const listed = JSON.parse((await admin('keys', 'list', '--partner', partner.slug, '--json')).stdout) as {
      keys: Record<string, string>[];
    };
    expect(listed.keys[0]).toMatchObject({
      key_prefix: partner.keyPrefix,
      state: 'revoked',
      last_used_at: expect.any(String),
    });
  });
});

describe('one-time reveal page', () => {
  it('shows a button on GET without spending the key, refuses a damaged link, and reveals exactly once', async () => {
    const { approvePartner } = await import('../../lib/operations/partners');
    const { testTarget, uniqueSlug } = await import('../support/partners');
    const slug = uniqueSlug('reveal');
    const { result } = await approvePartner(
      testTarget(),
      { name: 'Reveal PMS', slug, email: 'r@r.example', products: ['assistant'], revenueAccess: false },
      Date.now(),
    );
    const [pageUrl = ''] = result.reveal_url.split('#');

    const page = await fetch(pageUrl);
    const pageAgain = await fetch(pageUrl);
    const damaged = await fetch(pageUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ secret_digest: 'A'.repeat(43) }),
    });
    const key = await revealKey(result.reveal_url);
    const second = await fetch(pageUrl, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({ secret_digest: 'A'.repeat(43) }),
    });
    const pageAfter = await fetch(pageUrl);

    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("default-src 'none'");
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('cache-control')).toBe('no-store');
    expect(await page.text()).toContain('Reveal key');
    expect(pageAgain.status).toBe(200);
    expect(damaged.status).toBe(400);
    expect(key.startsWith(result.key_prefix)).toBe(true);
    expect(second.status).toBe(410);
    expect(pageAfter.status).toBe(410);
    expect(await pageAfter.text()).toContain('already shown');
  });

  it('answers an unknown reveal link with a 404 page', async () => {
    const response = await fetch(`${inject('activationBaseUrl')}/reveal/AAAAAAAAAAAAAAAAAAAAAAAA`);

    expect(response.status).toBe(404);
    expect(response.headers.get('content-type')).toContain('text/html');
  });
});
