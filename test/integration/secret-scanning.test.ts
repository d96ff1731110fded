import { createHash, generateKeyPairSync, randomBytes } from 'node:crypto';
import { readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { TokenFeedback } from '../../core/contract/secret-scanning';
import { signReport } from '../../core/contract/secret-scanning';
import { generateApiKey } from '../../core/domain/api-key';
import { SECRET_SCANNING_PATH } from '../../core/routes';
import { keyIdentifierOf } from '../../emulator/secret-scanning-keys';
import { admin, adminJson } from '../support/cli';
import { approvedPartner, revealKey } from '../support/partners';
import type { ServerProcess } from '../support/processes';
import { startServerProcess } from '../support/processes';

/*
 * Reports of leaked keys as GitHub's secret scanning partner program sends them, with real ECDSA
 * P-256 signatures: against the suite's server, signed with the reporter key pair it made itself
 * (and with key pairs made here, which it does not trust); and against a server of their own that
 * trusts the keys of a file (SECRET_SCANNING_KEYS_FILE), as `npm start` documents.
 */

function keyPair() {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const publicPem = publicKey.export({ type: 'spki', format: 'pem' }).toString();
  return {
    identifier: keyIdentifierOf(publicPem),
    publicPem,
    privatePem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  };
}

const untrusted = keyPair();
const trusted = keyPair();
const FOUND_AT = 'https://github.com/acme/app/blob/0123456789abcdef/.env';

/** A local server the reports go to: where, whose keys it trusts, and its operator CLI. */
interface Stand {
  readonly activationBaseUrl: string;
  readonly apiBaseUrl: string;
  readonly outboxDirectory: string;
  readonly reporter: { readonly privatePem: string; readonly identifier: string };
  admin(...args: string[]): Promise<Record<string, unknown>>;
  /** A partner of the server with its first key revealed. */
  partner(label: string): Promise<{ slug: string; prefix: string; key: string }>;
}

/** The suite's server, with the reporter key pair it made itself (as `npm start` does). */
async function suiteStand(): Promise<Stand> {
  const folder = join(inject('localDirectory'), 'secret-scanning');
  const published = JSON.parse(await readFile(join(folder, 'public-keys.json'), 'utf8')) as {
    public_keys: { key_identifier: string }[];
  };
  return {
    activationBaseUrl: inject('activationBaseUrl'),
    apiBaseUrl: inject('apiBaseUrl'),
    outboxDirectory: join(inject('localDirectory'), 'outbox'),
    reporter: {
      privatePem: await readFile(join(folder, 'private-key.pem'), 'utf8'),
      identifier: published.public_keys[0]?.key_identifier ?? '',
    },
    admin: (...args) => adminJson(...args),
    async partner() {
      const partner = await approvedPartner({ revenue: false });
      return { slug: partner.slug, prefix: partner.keyPrefix, key: partner.key };
    },
  };
}

/** A server of its own that trusts the keys of a file (SECRET_SCANNING_KEYS_FILE), as `npm start` documents. */
async function ownServer(keysFile: string): Promise<{ stand: Stand; server: ServerProcess }> {
  await writeFile(
    keysFile,
    JSON.stringify({
      public_keys: [{ key_identifier: trusted.identifier, key: trusted.publicPem, is_current: true }],
    }),
  );
  const server = await startServerProcess({ SECRET_SCANNING_KEYS_FILE: keysFile });
  return {
    server,
    stand: {
      ...server.runtime,
      reporter: trusted,
      admin: (...args) => server.admin(...args),
      partner: (label) => server.approvedPartner(label),
    },
  };
}

let suite: Stand;
beforeAll(async () => {
  suite = await suiteStand();
});

interface Entry {
  token: string;
  type?: string;
  url?: string;
  source?: string;
}

const reportBody = (entries: readonly Entry[]) =>
  JSON.stringify(
    entries.map((entry) => ({
      token: entry.token,
      type: entry.type ?? 'partner_api_key',
      url: entry.url ?? FOUND_AT,
      source: entry.source ?? 'content',
    })),
  );

/** Posts a body as GitHub does, signed by `signer` under `identifier` (either may be left out). */
async function post(
  body: string,
  {
    stand = suite,
    signer = stand.reporter.privatePem,
    identifier = stand.reporter.identifier,
    signed = body,
    signature,
  }: {
    stand?: Stand;
    signer?: string | null;
    identifier?: string | null;
    /** A signature header as given (not made by a key). */
    signature?: string;
    /** What the signature covers (a tampered report: another body than the one sent). */
    signed?: string;
  } = {},
) {
  const headers: Record<string, string> = { 'Content-Type': 'application/json' };
  if (identifier !== null) headers['Github-Public-Key-Identifier'] = identifier;
  if (signer !== null) headers['Github-Public-Key-Signature'] = signature ?? signReport(signed, signer);
  const response = await fetch(stand.activationBaseUrl + SECRET_SCANNING_PATH, {
    method: 'POST',
    headers,
    body,
  });
  const text = await response.text();
  return {
    status: response.status,
    type: response.headers.get('content-type'),
    json: JSON.parse(text) as unknown,
  };
}

const report = async (entries: readonly Entry[], stand = suite) => {
  const answer = await post(reportBody(entries), { stand });
  expect(answer.status, JSON.stringify(answer.json)).toBe(200);
  return answer.json as TokenFeedback[];
};

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

async function usageStatus(stand: Stand, key: string) {
  const response = await fetch(`${stand.apiBaseUrl}/usage`, { headers: { Authorization: `Bearer ${key}` } });
  return { status: response.status, body: (await response.json()) as { type?: string } };
}

const partnerWithKey = (label: string) => suite.partner(label);

async function keyState(slug: string, prefix: string, stand = suite) {
  const listed = (await stand.admin('keys', 'list', '--partner', slug)) as {
    keys: { key_prefix: string; state: string }[];
  };
  return listed.keys.find((key) => key.key_prefix === prefix)?.state;
}

async function revocationsOf(slug: string, stand = suite) {
  const listed = (await stand.admin('audit', 'list', '--partner', slug, '--action', 'key.revoked')) as {
    events: { actor: string; key_prefix: string; details: Record<string, unknown> }[];
  };
  return listed.events;
}

async function outbox(stand = suite): Promise<string[]> {
  const folder = stand.outboxDirectory;
  return Promise.all((await readdir(folder)).sort().map((name) => readFile(join(folder, name), 'utf8')));
}

/** A rotation of the partner's key (24 h of grace), its new key revealed: the old one retires. */
async function rotatedAndRevealed(slug: string): Promise<string> {
  const rotated = await suite.admin('keys', 'rotate', '--partner', slug, '--grace-hours', '24', '--no-mail');
  return revealKey(String(rotated.reveal_url));
}

describe('a report signed by a published key', () => {
  it('revokes a key retiring after a rotation, and leaves its replacement working', async () => {
    const partner = await partnerWithKey('retiring');
    const newKey = await rotatedAndRevealed(partner.slug);
    expect(await keyState(partner.slug, partner.prefix)).toBe('retiring');

    expect((await report([{ token: partner.key }]))[0]?.label).toBe('true_positive');

    expect(await keyState(partner.slug, partner.prefix)).toBe('revoked');
    expect(await keyState(partner.slug, newKey.slice(0, 12))).toBe('active');
    const notice = (await outbox()).find((mail) => mail.includes(`API key ${partner.prefix}`));
    expect(notice).toContain('Your other key keeps working');
  });

  it('revokes both keys of one partner in one report, and neither notice calls the other working', async () => {
    const partner = await partnerWithKey('both');
    const newKey = await rotatedAndRevealed(partner.slug);
    const junk = Array.from({ length: 9 }, () => ({ token: generateApiKey().key }));

    const feedback = await report([{ token: partner.key }, ...junk, { token: newKey }]);

    expect(feedback.map((entry) => entry.label).filter((label) => label === 'true_positive')).toHaveLength(2);
    const notices = (await outbox()).filter((mail) => mail.includes(`To: api@${partner.slug}.example`));
    expect(notices).toHaveLength(2);
    for (const notice of notices) {
      expect(notice).toContain('You have no other key that works');
      expect(notice).not.toContain('Your other key keeps working');
    }
  });

  it('keeps where a key was found as one line, cut, and still revokes when the url is long or crafted', async () => {
    const partner = await partnerWithKey('crafted');
    const crafted = `https://github.com/a/b\u001b[31m\nReported by: our team\r\n${'x/'.repeat(2_000)}`;

    const feedback = await report([{ token: partner.key, url: crafted, source: 'content\u202e' }]);

    expect(feedback[0]?.label).toBe('true_positive');
    const [revocation] = await revocationsOf(partner.slug);
    const url = String(revocation?.details.url);
    expect(url).toHaveLength(2_000);
    expect(url).toMatch(/^https:\/\/github\.com\/a\/b \[31m Reported by: our team {2}x\/x\//);
    expect(String(revocation?.details.source)).toBe('content');
    const notice = (await outbox()).find((mail) => mail.includes(`To: api@${partner.slug}.example`)) ?? '';
    const lines = notice.split('\n').map((line) => line.trimEnd());
    expect(lines.filter((line) => line.startsWith('Reported by:'))).toEqual([
      'Reported by: GitHub secret scanning',
    ]);
    expect(notice).not.toContain(String.fromCharCode(0x1b));
  });

  it('judges unknown, malformed, mistyped and already revoked tokens false positives, and changes nothing', async () => {
    const partner = await partnerWithKey('revoked');
    await suite.admin('keys', 'revoke', '--prefix', partner.prefix);
    const unknown = generateApiKey().key;
    const mistyped = `${partner.key.slice(0, -1)}${partner.key.endsWith('A') ? 'B' : 'A'}`;
    const tokens = [unknown, 'svc_short', 'ghp_notours0123456789', mistyped, partner.key];

    const feedback = await report(tokens.map((token) => ({ token, type: 'some_type' })));

    expect(feedback).toEqual(
      tokens.map((token) => ({
        token_hash: sha256(token),
        token_type: 'some_type',
        label: 'false_positive',
      })),
    );
    expect(await revocationsOf(partner.slug)).toHaveLength(1);
  });

  it('takes 1,000 tokens at once, each judged on its own, and the same report again changes nothing', async () => {
    const partner = await partnerWithKey('thousand');
    const tokens = Array.from({ length: 1_000 }, () => generateApiKey().key);
    tokens[617] = partner.key;

    const first = await report(tokens.map((token) => ({ token })));
    const again = await report(tokens.map((token) => ({ token })));

    expect(first).toHaveLength(1_000);
    expect(first.map((entry) => entry.label).filter((label) => label === 'true_positive')).toHaveLength(1);
    expect(first[617]).toEqual({
      token_hash: sha256(partner.key),
      token_type: 'partner_api_key',
      label: 'true_positive',
    });
    expect(first.map((entry) => entry.token_hash)).toEqual(tokens.map(sha256));
    expect(again.every((entry) => entry.label === 'false_positive')).toBe(true);
    expect(await revocationsOf(partner.slug)).toHaveLength(1);
    expect((await outbox()).filter((mail) => mail.includes(`To: api@${partner.slug}.example`))).toHaveLength(
      1,
    );
  }, 60_000);
});

describe('a report the signature does not vouch for evaluates nothing', () => {
  it.each([
    ['a tampered body', (body: string) => post(body, { signed: body.replace('content', 'commit') })],
    ['an unknown key identifier', (body: string) => post(body, { identifier: untrusted.identifier })],
    ['a signature by another key', (body: string) => post(body, { signer: untrusted.privatePem })],
    ['no identifier header', (body: string) => post(body, { identifier: null })],
    ['no signature header', (body: string) => post(body, { signer: null })],
    ['a signature that is not DER', (body: string) => post(body, { signature: 'bm90IGEgc2lnbmF0dXJl' })],
  ])('%s: 401 invalid-signature, and the key keeps working', async (_case, send) => {
    const partner = await partnerWithKey('unsigned');

    const answer = await send(reportBody([{ token: partner.key }]));

    expect(answer.status).toBe(401);
    expect(answer.type).toBe('application/problem+json');
    expect(answer.json).toMatchObject({ status: 401, type: expect.stringMatching(/\/invalid-signature$/) });
    expect(await keyState(partner.slug, partner.prefix)).toBe('active');
    expect(await revocationsOf(partner.slug)).toEqual([]);
  });

  it('refuses a body that is not a report with 400, nothing evaluated: not JSON, not an array, 1,001 entries, over 1 MB', async () => {
    const partner = await partnerWithKey('malformed');
    const bodies = [
      `${reportBody([{ token: partner.key }])}]`,
      JSON.stringify({ token: partner.key, type: 'partner_api_key' }),
      reportBody(Array.from({ length: 1_001 }, () => ({ token: partner.key }))),
      reportBody([{ token: partner.key, url: `${FOUND_AT}?${'x'.repeat(1_000_000)}` }]),
      '[]',
    ];
    for (const body of bodies) {
      const answer = await post(body);
      expect(answer.status, body.slice(0, 80)).toBe(400);
      expect(answer.json).toMatchObject({ type: expect.stringMatching(/\/invalid-request$/) });
    }
    expect(await keyState(partner.slug, partner.prefix)).toBe('active');
  });
});

describe('keys report-leak, for a leak reported another way', () => {
  it('on a server with a key pair of its own, signs a report as GitHub would; keys replace then mails a new key', async () => {
    const partner = await approvedPartner({ revenue: false });
    const file = join(tmpdir(), `leaked-${randomBytes(4).toString('hex')}.txt`);
    await writeFile(file, `${partner.key}\n`, { mode: 0o600 });

    const reported = await adminJson(
      'keys',
      'report-leak',
      '--key',
      file,
      '--url',
      FOUND_AT,
      '--source',
      'partner e-mail',
    );
    const again = await admin('keys', 'report-leak', '--key', file, '--url', FOUND_AT);
    const replaced = await adminJson('keys', 'replace', '--prefix', partner.keyPrefix, '--no-mail');
    const twice = await admin('keys', 'replace', '--prefix', partner.keyPrefix, '--no-mail');
    await rm(file);

    expect(reported).toMatchObject({
      via: 'signed-report',
      key_prefix: partner.keyPrefix,
      label: 'true_positive',
    });
    expect(again.stdout).toContain('nothing changed');
    expect(again.stdout + again.stderr).not.toContain(partner.key);
    expect(replaced).toMatchObject({ replaces: partner.keyPrefix, scopes: ['metrics:read'] });
    const audit = (await adminJson(
      'audit',
      'list',
      '--partner',
      partner.slug,
      '--action',
      'key.revoked',
    )) as {
      events: { details: { source: string } }[];
    };
    expect(audit.events[0]?.details.source).toMatch(/^partner e-mail \(keys report-leak by .+\)$/);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toContain(
      `Key ${partner.keyPrefix} was already replaced by ${String(replaced.key_prefix)}`,
    );
    const listed = await adminJson('keys', 'list', '--partner', partner.slug);
    expect(listed.keys).toEqual([
      expect.objectContaining({
        key_prefix: partner.keyPrefix,
        state: 'revoked',
        leak_url: FOUND_AT,
        replaced_by: replaced.key_prefix,
      }),
      expect.objectContaining({ key_prefix: replaced.key_prefix, state: 'pending' }),
    ]);
  });
});

describe('on a server that trusts the keys of a file (SECRET_SCANNING_KEYS_FILE)', () => {
  let own: { stand: Stand; server: ServerProcess };
  const keysFile = join(tmpdir(), `secret-scanning-keys-${randomBytes(4).toString('hex')}.json`);
  beforeAll(async () => {
    own = await ownServer(keysFile);
  }, 120_000);
  afterAll(async () => {
    await own?.server.stop();
    await rm(keysFile, { force: true });
  });

  it('revokes the demo key at once, answers in GitHub feedback format, tells the partner, and leaves the metrics-only key working', async () => {
    const demoKey = /Demo partner "demo-pms"[^\n]*\n\s+(svc_\S+)/.exec(own.server.output())?.[1] ?? '';
    const metricsKey =
      /Metrics-only partner "metrics-pms"[^\n]*\n\s+(svc_\S+)/.exec(own.server.output())?.[1] ?? '';
    expect((await usageStatus(own.stand, demoKey)).status).toBe(200);

    const feedback = await report([{ token: demoKey, type: 'partner_api_key' }], own.stand);

    expect(feedback).toEqual([
      { token_hash: sha256(demoKey), token_type: 'partner_api_key', label: 'true_positive' },
    ]);
    expect(await keyState('demo-pms', demoKey.slice(0, 12), own.stand)).toBe('revoked');
    // Refused within the 30 s the authorizer may keep a key's verdict.
    const deadline = Date.now() + 35_000;
    let answer = await usageStatus(own.stand, demoKey);
    while (answer.status === 200 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      answer = await usageStatus(own.stand, demoKey);
    }
    expect(answer.status).toBe(401);
    expect(answer.body.type).toMatch(/\/revoked-api-key$/);
    expect((await usageStatus(own.stand, metricsKey)).status).toBe(200);

    const [revocation, ...others] = await revocationsOf('demo-pms', own.stand);
    expect(others).toEqual([]);
    expect(revocation).toMatchObject({
      actor: 'github-secret-scanning',
      key_prefix: demoKey.slice(0, 12),
      details: { reason: 'leaked', url: FOUND_AT, source: 'content' },
    });
    const notice = (await outbox(own.stand)).find((mail) => mail.includes(`API key ${demoKey.slice(0, 12)}`));
    expect(notice).toContain('To: api@demo-pms.example');
    expect(notice).toContain(FOUND_AT);
    expect(notice).toContain('revoked');
    expect(notice).not.toContain(demoKey);
    const shown = (await own.stand.admin('partners', 'show', 'demo-pms')) as { leaked_keys: unknown[] };
    expect(shown.leaked_keys).toEqual([
      expect.objectContaining({ key_prefix: demoKey.slice(0, 12), url: FOUND_AT, replaced_by: null }),
    ]);
  }, 60_000);

  it('on a server that trusts a keys file, judges the key itself in the operator’s name, and mails the notice', async () => {
    const partner = await own.stand.partner('direct');

    const file = join(tmpdir(), `leaked-${randomBytes(4).toString('hex')}.env`);
    await writeFile(file, `# leaked\nPARTNER_API_KEY=${partner.key} # prod\n`, { mode: 0o600 });
    const reported = await own.stand.admin('keys', 'report-leak', '--key', file, '--url', FOUND_AT);
    await rm(file);

    expect(reported).toMatchObject({ via: 'direct', label: 'true_positive', key_prefix: partner.prefix });
    const [revocation] = await revocationsOf(partner.slug, own.stand);
    expect(revocation?.details).toMatchObject({
      reason: 'leaked',
      url: FOUND_AT,
      source: 'reported to our team',
    });
    expect(revocation?.actor).not.toBe('github-secret-scanning');
    expect(
      (await outbox(own.stand)).some(
        (mail) => mail.includes(`To: api@${partner.slug}.example`) && mail.includes(FOUND_AT),
      ),
    ).toBe(true);
  });
});
