import { randomBytes } from 'node:crypto';
import { copyFile, mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { ProductId } from '../../core/domain/catalog';
import { DEFAULT_CATALOG, productIn } from '../../core/domain/catalog';
import type { Language } from '../../core/domain/languages';
import { LANGUAGES } from '../../core/domain/languages';
import type { Messages } from '../../lambdas/pages/messages';
import { CATALOGUES } from '../../lambdas/pages/messages';
import { WIZARD_FINISH, wizardStepsFor } from '../../lambdas/pages/wizard-steps';
import { layoutProblems, screenshot, seriousAccessibilityViolations, VIEWPORTS } from '../support/browser';
import { CLAIMED_NAME, expectNoRawKey, hostPages, mainText, stepsOf } from '../support/host-pages';
import { continueButton, walkWizard } from '../support/wizard';

/**
 * The host pages in each host language: how the language is chosen (Accept-Language, the switch),
 * formats in it, and every page of the flow looked at in each language at desktop and phone widths
 * (screenshots in test-artifacts/screenshots/host-pages/, no sideways scrolling, no text out of its
 * box, axe-core).
 */

const pages = hostPages('Lighthouse PMS', ['assistant', 'upsells', 'guidebook']);

describe('the host’s language', () => {
  it('follows Accept-Language with its q-values, and the switch changes it for the rest of the session', async () => {
    const page = await pages.newPage({ acceptLanguage: 'en;q=0.5, it;q=0.9, de;q=0' });
    await page.goto(await pages.link(['assistant']));
    expect(await page.locator('html').getAttribute('lang')).toBe('it');
    expect(await page.locator('h1').textContent()).toBe(CATALOGUES.it.welcomeHeading(CLAIMED_NAME));

    await Promise.all([page.waitForURL(/lang=fr/), page.getByRole('link', { name: 'Français' }).click()]);
    expect(await page.locator('html').getAttribute('lang')).toBe('fr');
    expect(await page.locator('h1').textContent()).toBe(CATALOGUES.fr.welcomeHeading(CLAIMED_NAME));
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
    const page = await pages.newPage({ acceptLanguage: 'de-DE,de;q=0.9' });
    const products: ProductId[] = ['assistant', 'upsells'];
    const pmsHotelId = `PMS-DE-${randomBytes(4).toString('hex')}`;
    await pages.walk(page, products, {
      url: await pages.link(products, { pmsHotelId }),
      look: async (name) => {
        // Intl puts a no-break space before the euro sign.
        if (name === 'review') expect(await mainText(page)).toMatch(/Breakfast, 12,50\s€\./);
      },
    });
    const { known, sentence } = await pages.whatItKnows(products, pmsHotelId, CATALOGUES.de);
    expect(known).toEqual(expect.arrayContaining(['die Check-in-Hinweise', '1 Antwort', '1 Angebot']));
    // German lists: commas, then "und" before the last, with no comma before it.
    expect(sentence).toMatch(
      /^Er kennt die Check-in-Hinweise, (.+, )?1 Antwort und 1 Angebot für Casa Verde by the Lake\.$/,
    );
    expect(await mainText(page)).toContain(sentence);

    const expired = await pages.newPage({ acceptLanguage: 'fr-FR' });
    const expiredAt = Date.UTC(2026, 10, 22, 10, 5);
    await expired.goto(await pages.expiredLink(expiredAt));
    expect(await expired.locator('h1').textContent()).toBe(CATALOGUES.fr.linkExpiredTitle);
    expect(await mainText(expired)).toContain('celui-ci a expiré le 22 novembre 2026 à 10:05 UTC.');
  });
});

/** The pages of a whole flow (all products), and the error pages, as the screenshots name them. */
async function errorPages(page: Page, language: Language) {
  const m: Messages = CATALOGUES[language];
  const origin = new URL(await pages.link(['assistant'])).origin;
  const used = await pages.link(['guidebook']);
  return [
    {
      name: 'error-expired',
      title: m.linkExpiredTitle,
      open: async () => page.goto(await pages.expiredLink(Date.now() - 60_000)),
    },
    {
      name: 'error-incomplete',
      title: m.linkMalformedTitle,
      open: async () => page.goto(`${origin}/partner/${pages.partner.slug}/activate?token=abc`),
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
        return page.goto(`${origin}/partner/${pages.partner.slug}/onboarding?lang=${language}`);
      },
    },
    {
      name: 'error-unknown-partner',
      title: m.unknownPartnerTitle,
      open: async () =>
        page.goto(`${origin}/partner/no-such-partner-${randomBytes(3).toString('hex')}/activate?token=abc`),
    },
  ];
}

describe('every host page, in every language, at desktop and phone widths', () => {
  it('the checks can fail: axe-core runs under the pages’ CSP, and an overflowing text is found', async () => {
    const page = await pages.newPage();
    await page.goto(await pages.link(['assistant']));
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

  /** Screenshots the README shows (docs/screenshots/): German and French, phone and desktop, by page. */
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
      marketplace: m.welcomeHeading(CLAIMED_NAME),
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
        const page = await pages.newPage({
          acceptLanguage: `${language};q=0.9`,
          viewport: VIEWPORTS.desktop,
        });
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
        const steps = await pages.walk(page, products, {
          look: async (name) => {
            if (name === 'marketplace') {
              // Product names and descriptions are the catalog's, in this language where it has them.
              const text = await mainText(page);
              for (const product of DEFAULT_CATALOG.filter((candidate) => products.includes(candidate.id)))
                expect(text).toContain(productIn(product, language).name);
            }
            await look(name, titles(m)[name] ?? name);
          },
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
