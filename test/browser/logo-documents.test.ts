import { mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getPartnerLogo } from '../../lambdas/data/partner-logos';
import { launchChromium } from '../support/browser';
import { admin } from '../support/cli';
import type { TestPartner } from '../support/partners';
import { approvedPartner } from '../support/partners';
import { PLAIN_SVG_LOGO, SCRIPT_MARKER, SVG_BYPASSES } from '../support/svg-logos';

/**
 * A stored logo opened as a document of its own (a new tab, a link to it), not as the pages show
 * it (an <img>, where an SVG runs nothing anyway): the bypasses of the old SVG check, given to
 * `partners brand`, run no script and fetch nothing in real Chromium (issue 26,
 * docs/design/host-pages.md "The partner's brand").
 */

let browser: Browser;
let partner: TestPartner;
let folder: string;

beforeAll(async () => {
  [browser, partner, folder] = await Promise.all([
    launchChromium(),
    approvedPartner({ name: 'Logo Document PMS', products: ['assistant'] }),
    mkdtemp(join(tmpdir(), 'logo-documents-')),
  ]);
});
afterAll(async () => {
  await browser?.close();
});

/** Where the document is opened from: the route below answers it, and nothing else. */
const LOGO_ADDRESS = 'https://logo.test/logo';

/**
 * Opens a logo as a top-level document and reports what it did: every request other than the
 * logo's own (each one refused), every dialog, and whether a script set `SCRIPT_MARKER`.
 */
async function openAsDocument(logo: { contentType: string; body: Buffer }) {
  const context = await browser.newContext();
  const requests: string[] = [];
  await context.route('**/*', async (route) => {
    const address = route.request().url();
    if (address === LOGO_ADDRESS) return route.fulfill({ contentType: logo.contentType, body: logo.body });
    requests.push(address);
    return route.abort();
  });
  const page = await context.newPage();
  const dialogs: string[] = [];
  page.on('dialog', (dialog) => {
    dialogs.push(dialog.message());
    void dialog.dismiss();
  });
  // networkidle: an animation's fetch starts after the load event, and is waited for too.
  await page.goto(LOGO_ADDRESS, { waitUntil: 'networkidle' });
  const scriptRan = await page.evaluate((marker) => marker in window, SCRIPT_MARKER);
  await context.close();
  return { requests, dialogs, scriptRan };
}

async function brandWith(name: string, svg: string) {
  const path = join(folder, name);
  await writeFile(path, svg);
  return admin('partners', 'brand', '--partner', partner.slug, '--logo', path);
}

const readable = SVG_BYPASSES.filter((bypass) => bypass.readable);

describe('a stored logo opened as its own document', () => {
  it.each(readable)('the harness sees $name run or fetch, opened as it was given', async ({ svg }) => {
    // Act
    const opened = await openAsDocument({ contentType: 'image/svg+xml', body: Buffer.from(svg) });

    // Assess: without this, a test below could pass because nothing was able to run.
    expect(opened.scriptRan || opened.requests.length > 0, JSON.stringify(opened)).toBe(true);
  });

  it.each(readable)(
    '$name: partners brand stores it, and it runs nothing and fetches nothing',
    async ({ name, svg }) => {
      // Act
      const brand = await brandWith('bypass.svg', svg);

      // Assess
      expect(brand.code, brand.stderr).toBe(0);
      const logo = await getPartnerLogo(partner.id);
      if (!logo) throw new Error(`no logo stored for ${name}`);
      const opened = await openAsDocument({
        contentType: logo.contentType,
        body: Buffer.from(logo.data, 'base64'),
      });
      expect(opened).toEqual({ requests: [], dialogs: [], scriptRan: false });
    },
  );

  it('an SVG no reader takes (<rect/onload=…>) is refused, and the stored logo stays', async () => {
    // Prepare
    const plain = await brandWith('plain.svg', PLAIN_SVG_LOGO);
    expect(plain.code, plain.stderr).toBe(0);
    const before = await getPartnerLogo(partner.id);

    // Act
    const refusals = await Promise.all(
      SVG_BYPASSES.filter((bypass) => !bypass.readable).map(({ svg }, index) =>
        brandWith(`unreadable-${index}.svg`, svg),
      ),
    );

    // Assess
    expect(refusals).not.toHaveLength(0);
    for (const refused of refusals) {
      expect(refused.code).toBe(1);
      expect(refused.stderr).toContain('the SVG cannot be read');
    }
    expect(await getPartnerLogo(partner.id)).toEqual(before);
  });
});
