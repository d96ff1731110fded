import { randomBytes } from 'node:crypto';
import type { Page } from 'playwright-core';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ProductId } from '../../core/domain/catalog';
import { DEFAULT_CATALOG, productIn } from '../../core/domain/catalog';
import { LANGUAGES } from '../../core/domain/languages';
import { CATALOGUES } from '../../lambdas/pages/messages';
import type { WizardStepId } from '../../lambdas/pages/wizard-steps';
import { wizardStepsFor } from '../../lambdas/pages/wizard-steps';
import { addCatalogProduct } from '../../operations/catalog';
import { screenshot, VIEWPORTS } from '../support/browser';
import { backButton, fieldValues, hostPages, mainText, stagesOf, stepsOf } from '../support/host-pages';
import { testTarget } from '../support/partners';
import { continueButton, continueFrom, STEP_FILLS, walkWizard } from '../support/wizard';

/**
 * The onboarding wizard as hosts meet it: its steps follow the products, Back, changing the
 * answers later through a new link, and what a host notices on the way (screenshots in
 * test-artifacts/screenshots/host-pages/).
 */

/** A product of the catalog that no wizard step needs (operators add such products with the CLI). */
const SPA = `spa-${randomBytes(3).toString('hex')}`;
const PARTNER_NAME = 'Lighthouse PMS';

beforeAll(async () => {
  await addCatalogProduct(
    testTarget(),
    { id: SPA, name: 'Spa booking', description: 'Lets guests book the spa.' },
    Date.now(),
  );
});
const pages = hostPages(PARTNER_NAME, ['assistant', 'upsells', 'guidebook', 'checkin', SPA]);

/**
 * "Assistant" in each host language: the words every catalogue uses today, and the assistant's
 * name in each language, so a new language's name of it is looked for too.
 */
const assistantNames = DEFAULT_CATALOG.filter((product) => product.id === 'assistant').flatMap((product) =>
  LANGUAGES.map((language) => productIn(product, language).name),
);
const mentionsAssistant = (text: string) =>
  /assist|asistent/i.test(text) || assistantNames.some((name) => text.includes(name));

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
      const page = await pages.newPage();
      const texts: string[] = [];
      const chips: string[][] = [];
      const pmsHotelId = `PMS-KNOWS-${randomBytes(4).toString('hex')}`;
      const shown = await pages.walk(page, products, {
        url: await pages.link(products, { pmsHotelId }),
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
        const { known, sentence } = await pages.whatItKnows(products, pmsHotelId, en);
        expect(known).toEqual(
          expect.arrayContaining([
            'the check-in instructions',
            '1 answer',
            ...(products.includes('upsells') ? ['1 offer'] : []),
          ]),
        );
        expect(closing).toContain(sentence);
      } else {
        for (const text of texts) expect(mentionsAssistant(text), text).toBe(false);
        expect(closing).toContain(en.setupComplete);
      }
      if (shown.includes('review')) expect(texts.join('\n')).toContain(en.changeLater(PARTNER_NAME));
    },
  );

  it.each(LANGUAGES)('a guidebook-only host never reads "assistant" in %s, on any page', async (language) => {
    const page = await pages.newPage({ acceptLanguage: language });
    const texts: string[] = [];
    await pages.walk(page, ['guidebook'], {
      look: async () => {
        expect(await page.locator('html').getAttribute('lang')).toBe(language);
        texts.push(`${await page.title()}\n${await page.locator('html').innerText()}`);
      },
    });
    // The marketplace, each of the guidebook's steps, the closing page.
    expect(texts).toHaveLength(stepsOf(['guidebook']).length + 2);
    for (const text of texts) expect(mentionsAssistant(text), text).toBe(false);
  });
});

describe('Back, and changing the answers later', () => {
  it('Back keeps what was typed, on this step and the one before; an empty step just goes back', async () => {
    const products: ProductId[] = ['assistant', 'upsells'];
    const previous = (step: WizardStepId) => stepsOf(products)[stepsOf(products).indexOf(step) - 1] ?? 'none';
    const page = await pages.newPage();
    await page.goto(await pages.link(products));
    await Promise.all([page.waitForURL(/onboarding/), continueButton(page).click()]);
    expect(await backButton(page).count()).toBe(0);
    // The step before the questions, as the host filled it.
    let typedBefore: [string, string][] = [];
    const before = previous('faqs') as WizardStepId;
    await walkWizard(page, products, {
      to: 'faqs',
      fills: {
        [before]: async (on: Page) => {
          await STEP_FILLS[before](on);
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
    const page = await pages.newPage({ acceptLanguage: 'de' });
    await page.goto(await pages.link(['assistant', 'upsells']));
    await Promise.all([page.waitForURL(/onboarding/), continueButton(page).click()]);
    await walkWizard(page, ['assistant', 'upsells'], { to: 'faqs' });
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
    const page = await pages.newPage();
    await pages.walk(page, products, { url: await pages.link(products, host) });
    await screenshot(page, 'host-pages/changed-later-1-done');

    const again = await pages.newPage();
    await again.goto(await pages.link(['assistant'], host));
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
    const page = await pages.newPage({ acceptLanguage: 'fr', viewport: VIEWPORTS.desktop });
    const products: ProductId[] = ['assistant', 'upsells', 'guidebook'];
    await page.goto(await pages.link(products));
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
    const page = await pages.newPage({ acceptLanguage: 'de' });
    let review: { top: number; bottom: number }[] = [];
    await pages.walk(page, ['assistant', 'upsells'], {
      look: async (name) => {
        if (name !== 'review') return;
        await screenshot(page, 'host-pages/review-de-phone');
        review = await boxes(page, '.actions button');
      },
    });

    expect(review).toHaveLength(2);
    const [back, main] = review as [{ top: number; bottom: number }, { top: number; bottom: number }];
    expect(back.top).toBeLessThan(main.bottom);
    expect(back.bottom).toBeGreaterThan(main.top);
  });

  it('the review has one heading at its top, and the price field a hint instead of a placeholder', async () => {
    const page = await pages.newPage();
    await pages.walk(page, ['assistant', 'upsells'], {
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
    const page = await pages.newPage({ viewport: VIEWPORTS.desktop });
    await page.goto(await pages.link(['assistant', 'upsells', 'guidebook']));

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
