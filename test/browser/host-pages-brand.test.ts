import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import { describe, expect, it } from 'vitest';
import { dynamoDb } from '../../lambdas/data/db';
import { brandingUpdateItems, getPartnerLogo, logoDigest } from '../../lambdas/data/partner-logos';
import { CATALOGUES } from '../../lambdas/pages/messages';
import { screenshot, VIEWPORTS } from '../support/browser';
import { admin } from '../support/cli';
import { hostPages, mainText } from '../support/host-pages';
import { approvedPartner } from '../support/partners';
import { continueButton } from '../support/wizard';

/** The partner's brand on the host pages, from the marketplace to the closing page. */

const pages = hostPages('Lighthouse PMS', ['assistant']);

/** A PNG of one colour: enough to be a real logo file. */
function solidPng(width: number, height: number, rgb: [number, number, number]): Buffer {
  const crcTable = Array.from({ length: 256 }, (_, n) => {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    return c >>> 0;
  });
  const crc = (bytes: Buffer) => {
    let c = 0xffffffff;
    for (const byte of bytes) c = (crcTable[(c ^ byte) & 0xff] ?? 0) ^ (c >>> 8);
    return (c ^ 0xffffffff) >>> 0;
  };
  const chunk = (type: string, data: Buffer) => {
    const body = Buffer.concat([Buffer.from(type, 'ascii'), data]);
    const length = Buffer.alloc(4);
    length.writeUInt32BE(data.length);
    const sum = Buffer.alloc(4);
    sum.writeUInt32BE(crc(body));
    return Buffer.concat([length, body, sum]);
  };
  const header = Buffer.alloc(13);
  header.writeUInt32BE(width, 0);
  header.writeUInt32BE(height, 4);
  header.set([8, 2, 0, 0, 0], 8);
  const row = Buffer.concat([Buffer.from([0]), Buffer.from(Array.from({ length: width }, () => rgb).flat())]);
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    chunk('IHDR', header),
    chunk('IDAT', deflateSync(Buffer.concat(Array.from({ length: height }, () => row)))),
    chunk('IEND', Buffer.alloc(0)),
  ]);
}

describe('the partner’s brand', () => {
  it('shows the logo from our own page (a data: URL), the accent colour, and "Back to" on error pages', async () => {
    const branded = await approvedPartner({ name: 'Brand PMS', products: ['assistant'] });
    const folder = await mkdtemp(join(tmpdir(), 'logo-'));
    const logo = join(folder, 'logo.png');
    await writeFile(logo, solidPng(120, 40, [11, 83, 148]));
    const brand = await admin(
      'partners',
      'brand',
      '--partner',
      branded.slug,
      '--logo',
      logo,
      '--accent',
      '#0B5394',
      '--website',
      'https://www.brand.example/hosts',
    );
    expect(brand.code, brand.stderr).toBe(0);

    const page = await pages.newPage({ acceptLanguage: 'es' });
    const response = await page.goto(await pages.link(['assistant'], { slug: branded.slug }));
    const image = page.locator('.sponsor img');
    expect(await image.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    expect(await image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(120);
    expect(await page.locator('.sponsor').innerText()).toContain('Brand PMS');
    expect(response?.headers()['content-security-policy']).toContain("img-src 'self' data:");
    expect(await continueButton(page).evaluate((button) => getComputedStyle(button).backgroundColor)).toBe(
      'rgb(11, 83, 148)',
    );
    await screenshot(page, 'host-pages/branded-marketplace');

    const expired = await pages.newPage({ acceptLanguage: 'es' });
    await expired.goto(await pages.expiredLink(Date.now() - 60_000, branded));
    const back = expired.getByRole('link', { name: CATALOGUES.es.backTo('Brand PMS') });
    expect(await back.getAttribute('href')).toBe('https://www.brand.example/hosts');
    await screenshot(expired, 'host-pages/branded-expired');
  });

  it('an SVG logo with script never runs: the CLI stores it drawn, and one stored as it is stays inert', async () => {
    const branded = await approvedPartner({ name: 'Script PMS', products: ['assistant'] });
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="120" height="40" onload="alert(1)"><script>alert(2);top.__svg=1</script><rect width="120" height="40" fill="#0b5394"/></svg>',
    );
    const folder = await mkdtemp(join(tmpdir(), 'logo-'));
    await writeFile(join(folder, 'logo.svg'), svg);
    const drawn = await admin(
      'partners',
      'brand',
      '--partner',
      branded.slug,
      '--logo',
      join(folder, 'logo.svg'),
    );
    expect(drawn.code, drawn.stderr).toBe(0);
    expect((await getPartnerLogo(branded.id))?.contentType).toBe('image/png');
    // Stored as it is, as a table edited by hand or a version before SVGs were drawn would hold it.
    await dynamoDb().send(
      new TransactWriteCommand({
        TransactItems: brandingUpdateItems(
          branded.id,
          { logo: { contentType: 'image/svg+xml', sha256: logoDigest(svg) } },
          { bytes: svg, contentType: 'image/svg+xml' },
        ),
      }),
    );

    const page = await pages.newPage();
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto(await pages.link(['assistant'], { slug: branded.slug }));
    const image = page.locator('.sponsor img');
    expect(await image.getAttribute('src')).toMatch(/^data:image\/svg\+xml;base64,/);
    expect(await image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(120);
    expect(await page.evaluate(() => (window as unknown as { __svg?: number }).__svg)).toBeUndefined();
    expect(dialogs).toEqual([]);
  });
});

describe('the partner’s brand to the end', () => {
  it('the closing page links back to the partner’s website', async () => {
    const branded = await approvedPartner({ name: 'Acme PMS', products: ['assistant'] });
    const brand = await admin(
      'partners',
      'brand',
      '--partner',
      branded.slug,
      '--website',
      'https://www.acme.example/hosts',
    );
    expect(brand.code, brand.stderr).toBe(0);
    const page = await pages.newPage({ acceptLanguage: 'it' });

    await pages.walk(page, ['assistant'], {
      url: await pages.link(['assistant'], { slug: branded.slug }),
    });
    await screenshot(page, 'host-pages/branded-done-it');

    const back = page.getByRole('link', { name: 'Acme PMS' });
    expect(await back.getAttribute('href')).toBe('https://www.acme.example/hosts');
    expect(await back.getAttribute('rel')).toBe('noopener noreferrer');
    expect(await mainText(page)).toContain('tornare ad Acme PMS');
  });

  it('the demo partner that npm start seeds has a logo, an accent colour and a website', async () => {
    const page = await pages.newPage({ viewport: VIEWPORTS.desktop });

    await page.goto(await pages.link(['assistant', 'upsells', 'guidebook'], { slug: 'demo-pms' }));
    await screenshot(page, 'host-pages/demo-partner-marketplace');

    const image = page.locator('.sponsor img');
    expect(await image.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    expect(await image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth > 0)).toBe(true);
    expect(
      await continueButton(page).evaluate((button) => getComputedStyle(button).backgroundColor),
    ).not.toBe('rgb(31, 111, 235)');
    await page.context().clearCookies();
    await page.goto(page.url().replace(/marketplace.*$/, 'onboarding'));
    expect(
      await page.getByRole('link', { name: CATALOGUES.en.backTo('Demo PMS') }).getAttribute('href'),
    ).toMatch(/^https:\/\//);
  });
});
