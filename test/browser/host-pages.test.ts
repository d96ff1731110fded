import { randomBytes } from 'node:crypto';
import { copyFile, mkdir, mkdtemp, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { deflateSync } from 'node:zlib';
import { TransactWriteCommand } from '@aws-sdk/lib-dynamodb';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintActivationToken } from '../../core/domain/activation-token';
import type { ProductId } from '../../core/domain/catalog';
import { DEFAULT_CATALOG, productIn } from '../../core/domain/catalog';
import type { Language } from '../../core/domain/languages';
import { LANGUAGES } from '../../core/domain/languages';
import { unseal } from '../../lambdas/common/secret-box';
import { loadServiceKey } from '../../lambdas/common/service-secrets';
import { dynamoDb } from '../../lambdas/data/db';
import { getKnowledgeBase } from '../../lambdas/data/knowledge-base';
import { brandingUpdateItems, getPartnerLogo, logoDigest } from '../../lambdas/data/partner-logos';
import { getSealedSigningSecret } from '../../lambdas/data/partners';
import { getPropertyIdForPmsHotel } from '../../lambdas/data/properties';
import type { Messages } from '../../lambdas/pages/messages';
import { CATALOGUES } from '../../lambdas/pages/messages';
import type { WizardContext } from '../../lambdas/pages/wizard-step';
import type { WizardStepId } from '../../lambdas/pages/wizard-steps';
import { WIZARD_FINISH, wizardStepsFor } from '../../lambdas/pages/wizard-steps';
import { addCatalogProduct } from '../../operations/catalog';
import { createActivationLink } from '../../operations/links';
import {
  launchChromium,
  layoutProblems,
  screenshot,
  seriousAccessibilityViolations,
  VIEWPORTS,
} from '../support/browser';
import { admin } from '../support/cli';
import type { TestPartner } from '../support/partners';
import { approvedPartner, testTarget } from '../support/partners';
import type { WalkOptions } from '../support/wizard';
import { continueButton, continueFrom, STEP_FILLS, walkWizard } from '../support/wizard';

/**
 * The host pages as hosts meet them: the wizard's steps follow the products, every page in each
 * language (Accept-Language, the switch), Back, changing answers later, the partner's brand, and
 * every page of the flow looked at in each language at desktop and phone widths (screenshots in
 * test-artifacts/screenshots/host-pages/, no sideways scrolling, no text out of its box, axe-core).
 */

let browser: Browser;
let partner: TestPartner;
/** A product of the catalog that no wizard step needs (operators add such products with the CLI). */
const SPA = `spa-${randomBytes(3).toString('hex')}`;
const PARTNER_NAME = 'Lighthouse PMS';
const contexts: BrowserContext[] = [];

beforeAll(async () => {
  await addCatalogProduct(
    testTarget(),
    { id: SPA, name: 'Spa booking', description: 'Lets guests book the spa.' },
    Date.now(),
  );
  [browser, partner] = await Promise.all([
    launchChromium(),
    approvedPartner({ name: PARTNER_NAME, products: ['assistant', 'upsells', 'guidebook', 'checkin', SPA] }),
  ]);
});
afterAll(async () => {
  await browser?.close();
});

let sequence = 0;
async function link(
  products: readonly ProductId[],
  host: { email?: string; pmsHotelId?: string; slug?: string } = {},
): Promise<string> {
  sequence += 1;
  const { url } = await createActivationLink(
    testTarget(),
    {
      slug: host.slug ?? partner.slug,
      email: host.email ?? `host${sequence}-${randomBytes(3).toString('hex')}@example.com`,
      name: 'Casa Verde',
      pmsHotelId: host.pmsHotelId ?? `PMS-${sequence}-${randomBytes(3).toString('hex')}`,
      products: [...products],
      ttlSeconds: 3_600,
    },
    Date.now(),
  );
  return url;
}

async function newPage(
  options: { acceptLanguage?: string; viewport?: { width: number; height: number } } = {},
): Promise<Page> {
  const context = await browser.newContext({
    viewport: options.viewport ?? VIEWPORTS.phone,
    extraHTTPHeaders: { 'Accept-Language': options.acceptLanguage ?? 'en' },
  });
  contexts.push(context);
  return context.newPage();
}

const backButton = (page: Page) => page.locator('form button[name=go][value=back]');
const stagesOf = (page: Page) => page.locator('nav ol.steps li').allTextContents();
/** The ids of the steps a host with these products meets, in order (the step table's). */
const stepsOf = (products: readonly ProductId[]) => wizardStepsFor(products).map((step) => step.id);
/** The values of a step's form, field by field (its hidden fields included). */
const fieldValues = (page: Page) =>
  page
    .locator('form')
    .evaluate((form: HTMLFormElement) =>
      Array.from(
        form.querySelectorAll<HTMLInputElement>('input, textarea, select'),
        (field) => [field.name, field.value] as [string, string],
      ),
    );

/**
 * Opens a link (a new one for these products unless given) and walks the whole flow as a host:
 * the marketplace, then the wizard's steps for these products (`walkWizard`), to the closing page.
 * `look` runs on every page before the host acts on it. Returns the steps shown, in order.
 */
async function walk(
  page: Page,
  products: readonly ProductId[],
  options: Omit<WalkOptions, 'look'> & { url?: string; look?: (name: string) => Promise<void> } = {},
): Promise<WizardStepId[]> {
  await page.goto(options.url ?? (await link(products)));
  await options.look?.('marketplace');
  await Promise.all([page.waitForURL(/onboarding/), continueButton(page).click()]);
  return walkWizard(page, products, options);
}

const mainText = (page: Page) => page.locator('body').innerText();

/**
 * What the closing page says the product knows about the host's property (its `pmsHotelId`): each
 * of the host's steps in its own words for what it saved ("1 answer"), in the steps' order.
 */
async function whatItKnows(products: readonly ProductId[], pmsHotelId: string, messages: Messages) {
  const propertyId = await getPropertyIdForPmsHotel(partner.id, pmsHotelId);
  const saved = {
    locale: { messages },
    knowledgeBase: await getKnowledgeBase(propertyId ?? 0),
  } as unknown as WizardContext;
  const known = wizardStepsFor(products).flatMap((step) => step.review?.known?.(saved) ?? []);
  return { known, sentence: messages.knowledgeSummary(known, 'Casa Verde by the Lake') };
}

/** Every key of the catalogue is camelCase: a page that showed a raw key would show one of these. */
const RAW_KEYS = Object.keys(CATALOGUES.en);
async function expectNoRawKey(page: Page) {
  const text = await page.locator('html').innerText();
  for (const key of RAW_KEYS) expect(text).not.toContain(key);
  expect(text).not.toMatch(/\bundefined\b|\[object Object\]|\bNaN\b/);
}

/** "Assistant" in each of our languages (German, French, Spanish, Italian included). */
const ASSISTANT = /assist|asistent/i;

describe('the wizard follows the products the host activated', () => {
  const en = CATALOGUES.en;
  // Which steps each host meets is the step table's (`wizardStepsFor`); the walk fails on a page
  // that shows another step than the table's next.
  const expected: [string, ProductId[]][] = [
    ['the assistant alone', ['assistant']],
    ['upsells alone', ['upsells']],
    ['the guidebook alone', ['guidebook']],
    ['online check-in alone', ['checkin']],
    ['all of them', ['assistant', 'upsells', 'guidebook', 'checkin']],
    ['a product no step needs', [SPA]],
  ];

  it.each(expected)(
    '%s: only its steps, chips and wording, and the closing page names what is active',
    async (_name, products) => {
      const steps = wizardStepsFor(products);
      const page = await newPage();
      const texts: string[] = [];
      const chips: string[][] = [];
      const pmsHotelId = `PMS-KNOWS-${randomBytes(4).toString('hex')}`;
      const shown = await walk(page, products, {
        url: await link(products, { pmsHotelId }),
        look: async () => {
          texts.push(await mainText(page));
          chips.push(await stagesOf(page));
        },
      });

      expect(shown).toEqual(steps.map((step) => step.id));
      // Each step is one a product of the host needs, or the closing one; with none, no wizard at all.
      for (const step of steps)
        expect(step.products?.some((product) => products.includes(product)) ?? true).toBe(true);
      if (products.includes(SPA)) expect(shown).toEqual([]);
      const stages = [en.stageProducts, ...steps.map((step) => step.stage(en)), en.stageDone];
      // One progress indicator, the same on every page, with only this host's steps.
      for (const pageChips of chips)
        expect(pageChips).toEqual(stages.map((label, index) => `${index + 1}. ${label}`));
      expect(await page.locator('h1').textContent()).toBe(en.doneTitle);
      const names = products.map(
        (id) => DEFAULT_CATALOG.find((product) => product.id === id)?.name ?? 'Spa booking',
      );
      const closing = await mainText(page);
      for (const name of names) expect(closing).toContain(name);
      if (products.includes('assistant')) {
        expect(closing).toContain('Your assistant now answers guests.');
        const { known, sentence } = await whatItKnows(products, pmsHotelId, en);
        expect(known).toEqual(
          expect.arrayContaining([
            'the check-in instructions',
            '1 answer',
            ...(products.includes('upsells') ? ['1 offer'] : []),
          ]),
        );
        expect(closing).toContain(sentence);
      } else {
        for (const text of texts) expect(text).not.toMatch(ASSISTANT);
        expect(closing).toContain(en.setupComplete);
      }
      if (shown.includes('review')) expect(texts.join('\n')).toContain(en.changeLater(PARTNER_NAME));
    },
  );

  it.each(LANGUAGES)('a guidebook-only host never reads "assistant" in %s, on any page', async (language) => {
    const page = await newPage({ acceptLanguage: language });
    const texts: string[] = [];
    await walk(page, ['guidebook'], {
      look: async () => {
        expect(await page.locator('html').getAttribute('lang')).toBe(language);
        texts.push(`${await page.title()}\n${await page.locator('html').innerText()}`);
      },
    });
    // The marketplace, each of the guidebook's steps, the closing page.
    expect(texts).toHaveLength(stepsOf(['guidebook']).length + 2);
    for (const text of texts) expect(text).not.toMatch(ASSISTANT);
  });
});

describe('Back, and changing the answers later', () => {
  it('Back keeps what was typed, on this step and the one before; an empty step just goes back', async () => {
    const products: ProductId[] = ['assistant', 'upsells'];
    const previous = (step: WizardStepId) => stepsOf(products)[stepsOf(products).indexOf(step) - 1] ?? 'none';
    const page = await newPage();
    await page.goto(await link(products));
    await Promise.all([page.waitForURL(/onboarding/), continueButton(page).click()]);
    expect(await backButton(page).count()).toBe(0);
    // The step before the questions, as the host filled it.
    let typedBefore: [string, string][] = [];
    const before = previous('faqs') as WizardStepId;
    await walkWizard(page, products, {
      to: 'faqs',
      fills: {
        [before]: async (on: Page) => {
          await STEP_FILLS[before](on, 'en');
          typedBefore = await fieldValues(on);
        },
      },
    });
    await page.locator('#question-0').fill('Can I bring my dog?');
    await page.locator('#answer-0').fill('Dogs are welcome.\nPlease keep them off the sofa.');

    await Promise.all([page.waitForURL(new RegExp(`step=${before}$`)), backButton(page).click()]);
    expect(typedBefore.length).toBeGreaterThan(2);
    expect(await fieldValues(page)).toEqual(typedBefore);
    await Promise.all([page.waitForURL(/step=faqs/), continueButton(page).click()]);
    expect(await page.locator('#question-0').inputValue()).toBe('Can I bring my dog?');
    expect(await page.locator('#answer-0').inputValue()).toBe(
      'Dogs are welcome.\nPlease keep them off the sofa.',
    );

    // Half an answer cannot be saved: Back shows what to fix and keeps it.
    await page.locator('#question-1').fill('Is there a cot?');
    await backButton(page).click();
    await page.waitForLoadState();
    expect(await page.getByRole('alert').textContent()).toContain(CATALOGUES.en.errorFaqIncomplete(2));
    expect(await page.locator('#question-1').inputValue()).toBe('Is there a cot?');
    await page.locator('#answer-1').fill('Yes, on request.');
    await continueFrom(page, 'faqs');
    await walkWizard(page, products, { to: 'upsells' });
    // Nothing typed on the offers step: Back goes back without a word.
    await Promise.all([
      page.waitForURL(new RegExp(`step=${previous('upsells')}$`)),
      backButton(page).click(),
    ]);
    await page.goto(page.url().replace(/onboarding.*$/, 'onboarding?step=faqs'));
    expect(await page.locator('#answer-1').inputValue()).toBe('Yes, on request.');
  });

  it('refuses control and text-direction characters in the wizard with a message that says which field', async () => {
    const page = await newPage({ acceptLanguage: 'de' });
    await page.goto(await link(['assistant', 'upsells']));
    await Promise.all([page.waitForURL(/onboarding/), continueButton(page).click()]);
    await walkWizard(page, ['assistant', 'upsells'], { to: 'faqs', language: 'de' });
    // A right-to-left override in the answer (it would reorder what guests read), a tab in a question.
    await page.locator('#question-0').fill('Gibt es WLAN?');
    await page.locator('#answer-0').fill('Ja, das Passwort: \u202egnuhcseb');
    await page.locator('#question-1').evaluate((input: HTMLInputElement) => {
      input.value = 'Frühstück\tab wann?';
    });
    await page.locator('#answer-1').fill('Ab 7 Uhr.\nIm Garten.');
    const [response] = await Promise.all([
      page.waitForResponse((candidate) => candidate.request().method() === 'POST'),
      continueButton(page).click(),
    ]);

    expect(response.status()).toBe(400);
    const alert = await page.getByRole('alert').innerText();
    expect(alert).toContain(CATALOGUES.de.errorFaqAnswerCharacters(1));
    expect(alert).toContain(CATALOGUES.de.errorFaqQuestionLine(2));
    // What was typed stays, for the host to fix; a line break in an answer is fine.
    expect(await page.locator('#answer-1').inputValue()).toBe('Ab 7 Uhr.\nIm Garten.');
    await screenshot(page, 'host-pages/refused-control-characters');
  });

  it('a new link from the partner opens the wizard on the saved answers, as the review says', async () => {
    const host = {
      email: `again-${randomBytes(3).toString('hex')}@example.com`,
      pmsHotelId: `AGAIN-${Date.now()}`,
    };
    const products: ProductId[] = ['assistant', 'upsells'];
    const page = await newPage();
    await walk(page, products, { url: await link(products, host) });
    await screenshot(page, 'host-pages/changed-later-1-done');

    const again = await newPage();
    await again.goto(await link(['assistant'], host));
    await Promise.all([again.waitForURL(/onboarding/), continueButton(again).click()]);
    // The property keeps both products: their steps, each showing what was saved, continued as it is.
    const looked: string[] = [];
    await walkWizard(again, products, {
      keepSaved: true,
      fills: { details: async () => again.locator('#property_name').fill('Casa Verde (renamed)') },
      look: async (step) => {
        looked.push(step);
        if (step === 'details')
          expect(await again.locator('#property_name').inputValue()).toBe('Casa Verde by the Lake');
        if (step === 'faqs')
          expect(await again.locator('#question-0').inputValue()).toBe('Is there parking?');
        if (step === 'upsells') {
          expect(await again.locator('#title-0').inputValue()).toBe('Breakfast');
          expect(await again.locator('#price-0').inputValue()).toBe('12.50');
        }
        if (step === 'review') {
          const review = await mainText(again);
          // The offer has no description: no dangling colon.
          expect(review).toContain('Breakfast, €12.50.');
          expect(await continueButton(again).textContent()).toBe(CATALOGUES.en.saveChanges);
          await screenshot(again, 'host-pages/changed-later-2-review');
        }
      },
    });
    expect(looked).toEqual(expect.arrayContaining(['details', 'faqs', 'upsells', 'review', 'done']));
    expect(await mainText(again)).toContain('Casa Verde (renamed)');
  });
});

describe('the host’s language', () => {
  it('follows Accept-Language with its q-values, and the switch changes it for the rest of the session', async () => {
    const page = await newPage({ acceptLanguage: 'en;q=0.5, it;q=0.9, de;q=0' });
    await page.goto(await link(['assistant']));
    expect(await page.locator('html').getAttribute('lang')).toBe('it');
    expect(await page.locator('h1').textContent()).toBe(CATALOGUES.it.welcomeHeading('Casa Verde'));

    await Promise.all([page.waitForURL(/lang=fr/), page.getByRole('link', { name: 'Français' }).click()]);
    expect(await page.locator('html').getAttribute('lang')).toBe('fr');
    expect(await page.locator('h1').textContent()).toBe(CATALOGUES.fr.welcomeHeading('Casa Verde'));
    expect(await page.locator('.languages a[aria-current]').textContent()).toBe('Français');
    // The choice sticks: the next pages are French although the browser still prefers Italian.
    await Promise.all([page.waitForURL(/onboarding/), continueButton(page).click()]);
    expect(await page.locator('html').getAttribute('lang')).toBe('fr');
    expect(await page.locator('h1').textContent()).toBe(
      wizardStepsFor(['assistant'])[0]?.title(CATALOGUES.fr),
    );
    await walkWizard(page, ['assistant'], { to: 'faqs' });
    // Switching on a step stays on that step.
    await Promise.all([page.waitForURL(/lang=de/), page.getByRole('link', { name: 'Deutsch' }).click()]);
    expect(page.url()).toContain('step=faqs');
    expect(await page.locator('h1').textContent()).toBe(CATALOGUES.de.faqsTitle);
  });

  it('prices, plurals and dates in the host’s language; expiry times labelled UTC', async () => {
    const page = await newPage({ acceptLanguage: 'de-DE,de;q=0.9' });
    const products: ProductId[] = ['assistant', 'upsells'];
    const pmsHotelId = `PMS-DE-${randomBytes(4).toString('hex')}`;
    await walk(page, products, {
      url: await link(products, { pmsHotelId }),
      look: async (name) => {
        // Intl puts a no-break space before the euro sign.
        if (name === 'review') expect(await mainText(page)).toMatch(/Breakfast, 12,50\s€\./);
      },
    });
    const { known, sentence } = await whatItKnows(products, pmsHotelId, CATALOGUES.de);
    expect(known).toEqual(expect.arrayContaining(['die Check-in-Hinweise', '1 Antwort', '1 Angebot']));
    // German lists: commas, then "und" before the last, with no comma before it.
    expect(sentence).toMatch(
      /^Er kennt die Check-in-Hinweise, (.+, )?1 Antwort und 1 Angebot für Casa Verde by the Lake\.$/,
    );
    expect(await mainText(page)).toContain(sentence);

    const expired = await newPage({ acceptLanguage: 'fr-FR' });
    const expiredAt = Date.UTC(2026, 10, 22, 10, 5);
    await expired.goto(await expiredLink(expiredAt));
    expect(await expired.locator('h1').textContent()).toBe(CATALOGUES.fr.linkExpiredTitle);
    expect(await mainText(expired)).toContain('celui-ci a expiré le 22 novembre 2026 à 10:05 UTC.');
  });
});

/** A link of this partner whose expiry is `expiredAtMs`, long past. */
async function expiredLink(
  expiredAtMs: number,
  slug = partner.slug,
  partnerId = partner.id,
): Promise<string> {
  const secret = unseal((await getSealedSigningSecret(partnerId)) ?? '', await loadServiceKey('sealing'));
  const { token } = mintActivationToken(
    {
      contact_email: 'late@example.com',
      contact_name: 'Late Host',
      pms_hotel_id: 'LATE-1',
      requested_product_ids: ['assistant'],
    },
    secret,
    expiredAtMs - 3_600_000,
    3_600,
  );
  const origin = new URL(await link(['assistant'])).origin;
  return `${origin}/partner/${slug}/activate?token=${token}`;
}

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

    const page = await newPage({ acceptLanguage: 'es' });
    const response = await page.goto(await link(['assistant'], { slug: branded.slug }));
    const image = page.locator('.sponsor img');
    expect(await image.getAttribute('src')).toMatch(/^data:image\/png;base64,/);
    expect(await image.evaluate((img: HTMLImageElement) => img.complete && img.naturalWidth)).toBe(120);
    expect(await page.locator('.sponsor').innerText()).toContain('Brand PMS');
    expect(response?.headers()['content-security-policy']).toContain("img-src 'self' data:");
    expect(await continueButton(page).evaluate((button) => getComputedStyle(button).backgroundColor)).toBe(
      'rgb(11, 83, 148)',
    );
    await screenshot(page, 'host-pages/branded-marketplace');

    const expired = await newPage({ acceptLanguage: 'es' });
    await expired.goto(await expiredLink(Date.now() - 60_000, branded.slug, branded.id));
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

    const page = await newPage();
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    await page.goto(await link(['assistant'], { slug: branded.slug }));
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
    const page = await newPage({ acceptLanguage: 'it' });

    await walk(page, ['assistant'], {
      url: await link(['assistant'], { slug: branded.slug }),
      language: 'it',
    });
    await screenshot(page, 'host-pages/branded-done-it');

    const back = page.getByRole('link', { name: 'Acme PMS' });
    expect(await back.getAttribute('href')).toBe('https://www.acme.example/hosts');
    expect(await back.getAttribute('rel')).toBe('noopener noreferrer');
    expect(await mainText(page)).toContain('tornare ad Acme PMS');
  });

  it('the demo partner that npm start seeds has a logo, an accent colour and a website', async () => {
    const page = await newPage({ viewport: VIEWPORTS.desktop });

    await page.goto(await link(['assistant', 'upsells', 'guidebook'], { slug: 'demo-pms' }));
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

describe('what a host notices', () => {
  /** The boxes of the elements a selector finds, in CSS pixels. */
  const boxes = (page: Page, selector: string) =>
    page.locator(selector).evaluateAll((elements) =>
      elements.map((element) => {
        const box = element.getBoundingClientRect();
        return { top: box.top, bottom: box.bottom, left: box.left, width: box.width };
      }),
    );

  it('the progress indicator is not a row of buttons, and fits one line on a desktop in French', async () => {
    const page = await newPage({ acceptLanguage: 'fr', viewport: VIEWPORTS.desktop });
    const products: ProductId[] = ['assistant', 'upsells', 'guidebook'];
    await page.goto(await link(products));
    await screenshot(page, 'host-pages/progress-fr-desktop');

    const chips = await page.locator('ol.steps li').evaluateAll((items) =>
      items.map((item) => {
        const style = getComputedStyle(item);
        return {
          radius: style.borderTopLeftRadius,
          border: style.borderTopWidth,
          top: item.getBoundingClientRect().top,
        };
      }),
    );
    // Products, each of the host's steps, Done.
    expect(chips).toHaveLength(stepsOf(products).length + 2);
    for (const chip of chips)
      expect(chip).toMatchObject({ radius: '0px', border: '0px', top: chips[0]?.top });
    expect(
      await page
        .locator('ol.steps li[aria-current=step]')
        .evaluate((item) => getComputedStyle(item).borderBottomWidth),
    ).toBe('3px');
  });

  it('on a German phone, Back stays beside the main button on the review step', async () => {
    const page = await newPage({ acceptLanguage: 'de' });
    let review: { top: number; bottom: number }[] = [];
    await walk(page, ['assistant', 'upsells'], {
      look: async (name) => {
        if (name !== 'review') return;
        await screenshot(page, 'host-pages/review-de-phone');
        review = await boxes(page, '.actions button');
      },
      language: 'de',
    });

    expect(review).toHaveLength(2);
    const [back, main] = review as [{ top: number; bottom: number }, { top: number; bottom: number }];
    expect(back.top).toBeLessThan(main.bottom);
    expect(back.bottom).toBeGreaterThan(main.top);
  });

  it('the review has one heading at its top, and the price field a hint instead of a placeholder', async () => {
    const page = await newPage();
    await walk(page, ['assistant', 'upsells'], {
      look: async (name) => {
        if (name === 'upsells') {
          const price = page.locator('#price-0');
          expect(await price.getAttribute('placeholder')).toBeNull();
          const hint = await price.getAttribute('aria-describedby');
          expect(await page.locator(`#${hint}`).textContent()).toContain('19.90');
        }
        if (name === 'review') {
          const next = await page.locator('h1').evaluate((h1) => h1.nextElementSibling?.tagName ?? '');
          expect(next).not.toMatch(/^H\d$/);
          expect(await page.locator('main').innerText()).toContain('Casa Verde by the Lake');
        }
      },
    });
  });

  it('the products’ checkboxes line up', async () => {
    const page = await newPage({ viewport: VIEWPORTS.desktop });
    await page.goto(await link(['assistant', 'upsells', 'guidebook']));

    const checkboxes = await boxes(page, '.choice input');
    const labels = await boxes(page, '.choice label');

    expect(checkboxes).toHaveLength(3);
    const offsets = checkboxes.map((box, index) => box.top - (labels[index]?.top ?? 0));
    for (const [index, box] of checkboxes.entries()) {
      expect(box.left).toBe(checkboxes[0]?.left);
      expect(box.width).toBe(checkboxes[0]?.width);
      expect(offsets[index]).toBeCloseTo(offsets[0] ?? 0, 1);
    }
  });
});

/** The pages of a whole flow (all products), and the error pages, as the screenshots name them. */
async function errorPages(page: Page, language: Language) {
  const m: Messages = CATALOGUES[language];
  const origin = new URL(await link(['assistant'])).origin;
  const used = await link(['guidebook']);
  return [
    {
      name: 'error-expired',
      title: m.linkExpiredTitle,
      open: async () => page.goto(await expiredLink(Date.now() - 60_000)),
    },
    {
      name: 'error-incomplete',
      title: m.linkMalformedTitle,
      open: async () => page.goto(`${origin}/partner/${partner.slug}/activate?token=abc`),
    },
    {
      name: 'error-used',
      title: m.linkUsedTitle,
      open: async () => {
        const first = await page.context().browser()?.newContext();
        const firstPage = await first?.newPage();
        await firstPage?.goto(used);
        await firstPage?.locator('form button[type=submit]').click();
        await firstPage?.waitForURL(/onboarding/);
        await first?.close();
        return page.goto(used);
      },
    },
    {
      name: 'error-session-ended',
      title: m.sessionEndedTitle,
      open: async () => {
        await page.context().clearCookies();
        return page.goto(`${origin}/partner/${partner.slug}/onboarding?lang=${language}`);
      },
    },
    {
      name: 'error-unknown-partner',
      title: m.unknownPartnerTitle,
      open: async () => page.goto(`${origin}/partner/no-such-partner-${sequence}/activate?token=abc`),
    },
  ];
}

describe('every host page, in every language, at desktop and phone widths', () => {
  it('the checks can fail: axe-core runs under the pages’ CSP, and an overflowing text is found', async () => {
    const page = await newPage();
    await page.goto(await link(['assistant']));
    await page.evaluate(() => {
      const main = document.querySelector('main');
      main?.insertAdjacentHTML('beforeend', '<img src="data:,"><button></button>');
      // Styled through the DOM: the pages' CSP refuses inline style attributes.
      const wide = document.createElement('p');
      wide.textContent = 'Unbreakable-text-far-wider-than-its-box';
      Object.assign(wide.style, { width: '100px', whiteSpace: 'nowrap', overflowWrap: 'normal' });
      main?.append(wide);
    });
    const violations = await seriousAccessibilityViolations(page);
    expect(violations.some((line) => line.includes('image-alt'))).toBe(true);
    expect(violations.some((line) => line.includes('button-name'))).toBe(true);
    expect((await layoutProblems(page)).some((line) => line.includes('Unbreakable-text'))).toBe(true);
  });

  /** Screenshots the README shows (docs/screenshots/): two languages, phone and desktop, by page. */
  const README_SHOTS: Record<string, string> = {
    'de/phone-faqs': 'activation-de-phone.png',
    'de/desktop-marketplace': 'activation-de-desktop.png',
    'fr/phone-marketplace': 'activation-fr-phone.png',
    'fr/desktop-review': 'activation-fr-desktop.png',
  };

  it('each page is in its language, fits both widths, and axe-core finds nothing serious', async () => {
    const products: ProductId[] = ['assistant', 'upsells', 'guidebook'];
    /** Each page's heading: the marketplace's, each step's (the step table's), the closing page's. */
    const titles = (m: Messages): Record<string, string> => ({
      marketplace: m.welcomeHeading('Casa Verde'),
      ...Object.fromEntries(wizardStepsFor(products).map((step) => [step.id, step.title(m)])),
      [WIZARD_FINISH.id]: WIZARD_FINISH.title(m),
    });
    const problems: string[] = [];
    /** Each screenshot taken, by language, width and page (`de/phone-faqs`). */
    const shots = new Map<string, string>();
    // One browser, a context per language, the languages side by side.
    await Promise.all(
      LANGUAGES.map(async (language) => {
        const m = CATALOGUES[language];
        const page = await newPage({ acceptLanguage: `${language};q=0.9`, viewport: VIEWPORTS.desktop });
        let number = 0;
        const look = async (name: string, title: string) => {
          number += 1;
          expect(await page.locator('html').getAttribute('lang'), name).toBe(language);
          expect(await page.locator('h1').textContent(), `${language} ${name}`).toBe(title);
          await expectNoRawKey(page);
          for (const [width, viewport] of Object.entries(VIEWPORTS)) {
            await page.setViewportSize(viewport);
            const shot = `${language}/${width}-${number}-${name}`;
            shots.set(`${language}/${width}-${name}`, await screenshot(page, `host-pages/${shot}`));
            for (const problem of await layoutProblems(page)) problems.push(`${shot}: ${problem}`);
            for (const violation of await seriousAccessibilityViolations(page))
              problems.push(`${shot}: ${violation}`);
          }
          await page.setViewportSize(VIEWPORTS.desktop);
        };
        const steps = await walk(page, products, {
          look: async (name) => {
            if (name === 'marketplace') {
              // Product names and descriptions are the catalog's, in this language where it has them.
              const text = await mainText(page);
              for (const product of DEFAULT_CATALOG.filter((candidate) => products.includes(candidate.id)))
                expect(text).toContain(productIn(product, language).name);
            }
            await look(name, titles(m)[name] ?? name);
          },
          language,
        });
        expect(steps).toEqual(stepsOf(products));
        for (const errorPage of await errorPages(page, language)) {
          await errorPage.open();
          await look(errorPage.name, errorPage.title);
        }
      }),
    );
    expect(problems).toEqual([]);
    if (process.env.UPDATE_README_SCREENSHOTS) {
      await mkdir('docs/screenshots', { recursive: true });
      for (const [shot, file] of Object.entries(README_SHOTS)) {
        const taken = shots.get(shot);
        if (!taken) throw new Error(`No screenshot ${shot} for the README's ${file}`);
        await copyFile(taken, join('docs/screenshots', file));
      }
    }
  }, 240_000);
});
