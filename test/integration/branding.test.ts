import { randomBytes } from 'node:crypto';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { LOGO_BOX } from '../../core/domain/branding';
import { productIn } from '../../core/domain/catalog';
import { LANGUAGES } from '../../core/domain/languages';
import { getPartnerLogo } from '../../lambdas/data/partner-logos';
import { getPartner } from '../../lambdas/data/partners';
import { admin, adminJson } from '../support/cli';
import type { TestPartner } from '../support/partners';
import { approvedPartner } from '../support/partners';

let folder: string;
let partner: TestPartner;
beforeAll(async () => {
  folder = await mkdtemp(join(tmpdir(), 'branding-'));
  partner = await approvedPartner({ name: 'Brand CLI PMS', products: ['assistant'] });
});

async function file(name: string, content: string | Uint8Array): Promise<string> {
  const path = join(folder, name);
  await writeFile(path, content);
  return path;
}

const LOGO =
  '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 40 10"><rect width="40" height="10" fill="#0b5394"/></svg>';

describe('partners brand', () => {
  it('stores the logo beside the partner, the accent and the website, and audits the change', async () => {
    const result = await adminJson(
      'partners',
      'brand',
      '--partner',
      partner.slug,
      '--logo',
      await file('logo.svg', LOGO),
      '--accent',
      '#0B5394',
      '--website',
      'https://www.brand.example/hosts',
    );

    expect(result).toMatchObject({
      partner: partner.slug,
      accent_color: '#0b5394',
      website: 'https://www.brand.example/hosts',
      logo: { content_type: 'image/png', bytes: expect.any(Number) },
    });
    const stored = await getPartner(partner.id);
    expect(stored?.branding).toEqual({
      accentColor: '#0b5394',
      website: 'https://www.brand.example/hosts',
      logo: { contentType: 'image/png', sha256: result.logo.sha256 },
    });
    // The SVG is stored drawn as a PNG that fills the pages' logo box three times over.
    const png = Buffer.from((await getPartnerLogo(partner.id))?.data ?? '', 'base64');
    expect(png.subarray(0, 8)).toEqual(Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]));
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([LOGO_BOX.width * 3, LOGO_BOX.height * 3]);
    expect(png.length).toBe(result.logo.bytes);
    const audit = await adminJson(
      'audit',
      'list',
      '--partner',
      partner.slug,
      '--action',
      'partner.branded',
      '--limit',
      '1',
    );
    expect(audit.events[0]).toMatchObject({
      actor: expect.any(String),
      action: 'partner.branded',
      partner: partner.slug,
      details: {
        changed: ['logo', 'accent color', 'website'],
        logo_type: 'image/png',
        logo_bytes: result.logo.bytes,
      },
    });

    // A change names only what changes; removing keeps the rest.
    const removed = await adminJson(
      'partners',
      'brand',
      '--partner',
      partner.slug,
      '--no-website',
      '--no-logo',
    );
    expect(removed).toMatchObject({ accent_color: '#0b5394', website: null, logo: null });
    expect((await getPartner(partner.id))?.branding).toEqual({ accentColor: '#0b5394' });
    expect(await getPartnerLogo(partner.id)).toBeUndefined();
  });

  it.each([
    [['--accent', '#cccccc'], 'too light: white text on it has a contrast of 1.61:1'],
    [['--accent', 'blue'], 'must be a colour as #RRGGBB'],
    [['--website', 'http://www.brand.example'], 'must start with https://'],
    [['--website', 'https://me:secret@brand.example'], 'must not contain a user name or password'],
  ])('refuses %j with what to fix, and changes nothing', async (options, message) => {
    const before = await getPartner(partner.id);
    const refused = await admin('partners', 'brand', '--partner', partner.slug, ...options);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(message);
    expect((await getPartner(partner.id))?.branding).toEqual(before?.branding);
  });

  it('refuses a logo that is too large (before reading it), not an image, or drawn without a part', async () => {
    const cases: [string, string | Uint8Array, string][] = [
      ['large.png', new Uint8Array(25 * 1024), 'the file has 25,600 bytes; a logo takes at most 24,576'],
      ['logo.gif', 'GIF89a', 'it is not a PNG, WebP or SVG file'],
      ['page.svg', '<html><body>hi</body></html>', 'it is not a PNG, WebP or SVG file'],
      ['broken.svg', LOGO.replace('<rect', '<rect/onload="alert(1)"'), 'the SVG cannot be read'],
      [
        'text.svg',
        LOGO.replace('<rect', '<text y="8">Acme</text><rect'),
        'the SVG has text, which would be drawn without its font',
      ],
      [
        'tracker.svg',
        LOGO.replace('<rect', '<image href="https://tracker.example/p.png"/><rect'),
        'the SVG shows an image from https://tracker.example/p.png, which is never read or fetched',
      ],
    ];
    for (const [name, content, message] of cases) {
      const refused = await admin(
        'partners',
        'brand',
        '--partner',
        partner.slug,
        '--logo',
        await file(name, content),
      );
      expect(refused.code, name).toBe(1);
      expect(refused.stderr, name).toContain(message);
    }
    const missing = await admin(
      'partners',
      'brand',
      '--partner',
      partner.slug,
      '--logo',
      join(folder, 'nope.png'),
    );
    // A logo file that is not there is a usage mistake, found before anything is contacted.
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('--logo: there is no file');
  });

  it('says what to pass when nothing would change, and names an unknown partner', async () => {
    const nothing = await admin('partners', 'brand', '--partner', partner.slug);
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('Nothing to change');
    const unknown = await admin('partners', 'brand', '--partner', 'no-such-partner', '--accent', '#0b5394');
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('No partner with slug "no-such-partner"');
  });
});

describe('catalog edit --lang', () => {
  it('stores a translation beside the English texts, keeps texts it does not name, and hosts fall back to English', async () => {
    const id = `sauna-${randomBytes(3).toString('hex')}`;
    await adminJson('catalog', 'add', id, '--name', 'Sauna', '--description', 'Lets guests book the sauna.');

    const first = await adminJson('catalog', 'edit', id, '--lang', 'de', '--name', 'Sauna-Buchung');
    expect(first.translations).toEqual({ de: { name: 'Sauna-Buchung' } });
    const second = await adminJson(
      'catalog',
      'edit',
      id,
      '--lang',
      'de',
      '--description',
      'Gäste buchen die Sauna.',
    );
    expect(second.translations).toEqual({
      de: { name: 'Sauna-Buchung', description: 'Gäste buchen die Sauna.' },
    });
    await adminJson('catalog', 'edit', id, '--lang', 'fr', '--name', 'Réservation du sauna');

    const { products } = await adminJson('catalog', 'list');
    const listed = products.find((product: { id: string }) => product.id === id);
    expect(listed).toMatchObject({ name: 'Sauna', translations: { fr: { name: 'Réservation du sauna' } } });
    const product = {
      id,
      name: 'Sauna',
      description: 'Lets guests book the sauna.',
      translations: { fr: { name: 'Réservation du sauna' } },
    };
    expect(productIn(product, 'fr')).toMatchObject({
      name: 'Réservation du sauna',
      description: 'Lets guests book the sauna.',
    });

    const audit = await adminJson('audit', 'list', '--action', 'catalog.changed', '--limit', '1');
    expect(audit.events[0].details).toMatchObject({
      product: id,
      change: 'translated',
      language: 'fr',
      fields: ['name'],
    });
  });

  it('refuses a language we do not have, and --no-goes-live for one language', async () => {
    const unknown = await admin('catalog', 'edit', 'assistant', '--lang', 'pt', '--name', 'Assistente');
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain(
      `--lang must be one of ${LANGUAGES.filter((language) => language !== 'en').join(', ')};`,
    );
    const perLanguage = await admin('catalog', 'edit', 'assistant', '--lang', 'de', '--no-goes-live');
    expect(perLanguage.code).toBe(2);
    const nothing = await admin('catalog', 'edit', 'assistant', '--lang', 'it');
    expect(nothing.code).toBe(2);
    expect(nothing.stderr).toContain('Nothing to translate');
  });
});
