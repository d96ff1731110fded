import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProductId } from '../../core/domain/catalog';
import { CATALOGUES } from '../../lambdas/pages/messages';
import type { WizardStepId } from '../../lambdas/pages/wizard-steps';
import { wizardStepsFor } from '../../lambdas/pages/wizard-steps';
import { createActivationLink } from '../../operations/links';
import { launchChromium, screenshot, VIEWPORTS } from '../support/browser';
import type { TestPartner } from '../support/partners';
import { approvedPartner, testTarget } from '../support/partners';
import { continueButton, walkWizard } from '../support/wizard';

/**
 * The wizard's rows of questions and offers: a refused save marks what to fix and keeps the page
 * as it was (GOV.UK's error summary), and "Add another" gives one more row on the same step, with
 * or without JavaScript.
 */

let browser: Browser;
let partner: TestPartner;
const contexts: BrowserContext[] = [];
const en = CATALOGUES.en;

beforeAll(async () => {
  [browser, partner] = await Promise.all([
    launchChromium(),
    approvedPartner({ name: 'Rows PMS', products: ['assistant', 'upsells'] }),
  ]);
});
afterAll(async () => {
  await browser?.close();
});

async function link(products: ProductId[]): Promise<string> {
  const { url } = await createActivationLink(
    testTarget(),
    {
      slug: partner.slug,
      email: `rows-${randomBytes(4).toString('hex')}@example.com`,
      name: 'Casa Fila',
      pmsHotelId: `ROWS-${randomBytes(4).toString('hex')}`,
      products,
      ttlSeconds: 3_600,
    },
    Date.now(),
  );
  return url;
}

/**
 * A host on this step of the wizard of these products, in a browser with or without JavaScript:
 * the steps before it (the step table's) filled and continued.
 */
async function onStep(
  step: WizardStepId,
  products: ProductId[],
  options: { javaScript?: boolean } = {},
): Promise<Page> {
  const context = await browser.newContext({
    viewport: VIEWPORTS.phone,
    javaScriptEnabled: options.javaScript ?? true,
    extraHTTPHeaders: { 'Accept-Language': 'en' },
  });
  contexts.push(context);
  const page = await context.newPage();
  await page.goto(await link(products));
  await Promise.all([
    page.waitForURL(/onboarding/),
    page.getByRole('button', { name: en.activateSelected }).click(),
  ]);
  await walkWizard(page, products, { to: step });
  return page;
}

const stepsOf = (products: ProductId[]) => wizardStepsFor(products).map((step) => step.id);
const rows = (page: Page) => page.locator('form fieldset').count();
/**
 * The focused element's id. The pages focus with `autofocus`, which a browser applies at the first
 * rendering after the page loads (HTML's "flush autofocus candidates",
 * https://html.spec.whatwg.org/multipage/interaction.html#flush-autofocus-candidates), not at `load`: the
 * tests poll it, or a busy machine reads the body.
 */
const focusedId = (page: Page) => page.evaluate(() => document.activeElement?.id ?? '');

describe('a refused save', () => {
  it('marks the field, moves focus to the summary, and keeps the number of rows', async () => {
    const page = await onStep('upsells', ['upsells']);
    const shown = await rows(page);
    await page.locator('#title-0').fill('Breakfast');
    await page.locator('#price-0').fill('about 25');

    const statuses: number[] = [];
    for (let attempt = 0; attempt < 3; attempt++) {
      const [response] = await Promise.all([
        page.waitForResponse((candidate) => candidate.request().method() === 'POST'),
        continueButton(page).click(),
      ]);
      await page.waitForLoadState();
      statuses.push(response.status());
    }
    await screenshot(page, 'wizard-rows/refused-price');

    expect(statuses).toEqual([400, 400, 400]);
    expect(await rows(page)).toBe(shown);
    const price = page.locator('#price-0');
    expect(await price.getAttribute('aria-invalid')).toBe('true');
    expect(await price.evaluate((input) => getComputedStyle(input).borderTopColor)).toBe('rgb(180, 35, 24)');
    expect(await page.locator('#price-1').getAttribute('aria-invalid')).toBeNull();
    await expect.poll(() => focusedId(page)).toBe('form-errors');
    const summaryLink = page.locator('#form-errors a');
    expect(await summaryLink.getAttribute('href')).toBe('#price-0');
    expect(await summaryLink.textContent()).toBe(en.errorOfferPrice(1, ['25', '19.90']));
    expect(await price.inputValue()).toBe('about 25');
  });

  it('on the marketplace, moves focus to the summary, which leads to the first product', async () => {
    const context = await browser.newContext({
      viewport: VIEWPORTS.phone,
      extraHTTPHeaders: { 'Accept-Language': 'en' },
    });
    contexts.push(context);
    const page = await context.newPage();
    await page.goto(await link(['assistant', 'upsells']));
    for (const box of await page.getByRole('checkbox').all()) await box.uncheck();

    await page.getByRole('button', { name: en.activateSelected }).click();
    await page.waitForLoadState();

    await expect.poll(() => focusedId(page)).toBe('form-errors');
    const summaryLink = page.locator('#form-errors a');
    expect(await summaryLink.textContent()).toBe(en.chooseAtLeastOne);
    expect(await summaryLink.getAttribute('href')).toBe('#product-assistant');
  });

  it('marks a half-filled question too', async () => {
    const page = await onStep('faqs', ['assistant']);
    const shown = await rows(page);
    await page.locator('#question-1').fill('Is there a cot?');

    await continueButton(page).click();
    await page.waitForLoadState();

    expect(await rows(page)).toBe(shown);
    expect(await page.locator('#answer-1').getAttribute('aria-invalid')).toBe('true');
    expect(await page.locator('#form-errors a').getAttribute('href')).toBe('#answer-1');
    await expect.poll(() => focusedId(page)).toBe('form-errors');
  });
});

describe('Add another', () => {
  it.each([
    ['with JavaScript', true],
    ['without JavaScript', false],
  ])('saves the questions and shows the same step with one more row (%s)', async (_name, javaScript) => {
    const page = await onStep('faqs', ['assistant'], { javaScript });
    expect(await rows(page)).toBe(2);
    await page.locator('#question-0').fill('Is there parking?');
    await page.locator('#answer-0').fill('Yes, behind the house.');
    await page.locator('#question-1').fill('Can I bring my dog?');
    await page.locator('#answer-1').fill('Dogs are welcome.');

    await page.getByRole('button', { name: en.addAnotherQuestion }).click();
    await page.waitForLoadState();

    expect(new URL(page.url()).searchParams.get('step')).toBe('faqs');
    expect(await rows(page)).toBe(3);
    expect(await page.locator('#question-1').inputValue()).toBe('Can I bring my dog?');
    await expect.poll(() => focusedId(page)).toBe('question-2');
    await page.locator('#question-2').fill('Is there a cot?');
    await page.locator('#answer-2').fill('Yes, on request.');
    await page.getByRole('button', { name: en.addAnotherQuestion }).click();
    await page.waitForLoadState();
    expect(await rows(page)).toBe(4);
    // Saved: a reload (or coming back later) shows the three answers.
    await page.reload();
    expect(await page.locator('#answer-2').inputValue()).toBe('Yes, on request.');
    await screenshot(page, `wizard-rows/add-another-${javaScript ? 'js' : 'no-js'}`);
  });

  it('comes in the keyboard order it is seen in: the last field, Add another, Back, then Continue', async () => {
    const page = await onStep('faqs', ['assistant', 'upsells']);
    const label = () =>
      page.evaluate(() => {
        const active = document.activeElement as HTMLElement | null;
        return active?.id || active?.textContent?.trim() || '';
      });
    const lastAnswer = page.locator('form textarea[id^=answer-]').last();
    await lastAnswer.focus();

    const order: string[] = [];
    for (let presses = 0; presses < 3; presses++) {
      await page.keyboard.press('Tab');
      order.push(await label());
    }
    const seen = await page
      .locator('form button:visible')
      .evaluateAll((buttons) =>
        buttons.map((button) => [button.textContent?.trim(), button.getBoundingClientRect().top]),
      );

    expect(order).toEqual([en.addAnotherQuestion, en.backButton, en.saveAndContinue]);
    // Add another is shown above Back and Continue, which share a line.
    const top = (name: string) => seen.find(([text]) => text === name)?.[1] as number;
    expect(top(en.addAnotherQuestion)).toBeLessThan(top(en.backButton));
    expect(Math.abs(top(en.backButton) - top(en.saveAndContinue))).toBeLessThan(4);
  });

  it('adds an offer row the same way; Enter in a field still continues', async () => {
    const page = await onStep('upsells', ['upsells']);
    await page.locator('#title-0').fill('Breakfast');
    await page.locator('#price-0').fill('12.50');

    const shown = await rows(page);

    await page.getByRole('button', { name: en.addAnotherOffer }).click();
    await page.waitForLoadState();
    expect(await rows(page)).toBe(shown + 1);
    // The first row after the saved offer takes the focus.
    await expect.poll(() => focusedId(page)).toBe('title-1');
    await page.locator('#title-1').fill('Late check-out');
    await page.locator('#price-1').fill('25');
    const next = stepsOf(['upsells'])[stepsOf(['upsells']).indexOf('upsells') + 1];
    await Promise.all([
      page.waitForURL(new RegExp(`step=${next}$`)),
      page.locator('#price-1').press('Enter'),
    ]);
    await page.goto(page.url().replace(/onboarding.*$/, 'onboarding?step=review'));
    expect(await page.locator('main').innerText()).toContain('Late check-out');
  });
});
