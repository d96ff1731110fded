import type { Page } from 'playwright-core';
import { describe, expect, it } from 'vitest';
import type { ProductId } from '../../core/domain/catalog';
import { CATALOGUES } from '../../lambdas/pages/messages';
import { screenshot } from '../support/browser';
import { ACTIVATION_VIEWPORT, hostPages } from '../support/host-pages';
import { continueFrom, stepOn, walkWizard } from '../support/wizard';

/**
 * A second activation link opened in a browser with a setup in progress: the host chooses, and
 * nothing else replaces the session (docs/design/activation-links.md).
 */

const pages = hostPages('Harbour PMS', ['assistant', 'upsells', 'guidebook']);
const en = CATALOGUES.en;

describe('a second link in a browser with a setup in progress', () => {
  /** A host who activated a link and is on the wizard's first step, with what they typed saved. */
  async function hostInTheWizard(): Promise<Page> {
    const page = await pages.newPage(ACTIVATION_VIEWPORT);
    await page.goto(await pages.link(['assistant']));
    await page.getByRole('button', { name: 'Activate selected products' }).click();
    await page.waitForURL(/onboarding$/);
    await page.goto(page.url().replace(/onboarding.*$/, 'onboarding?step=details'));
    await page.getByLabel('Property name').fill('The First Host’s Place');
    await page.getByLabel('Check-in instructions').fill('The key is under the third pot.');
    await continueFrom(page, 'details');
    return page;
  }
  const wizardOrigin = (page: Page) => new URL(page.url()).origin;
  /** What the browser's session shows on the wizard's first step. */
  async function propertyInSession(page: Page): Promise<string> {
    await page.goto(page.url().replace(/onboarding.*$/, 'onboarding?step=details'));
    return page.locator('#property_name').inputValue();
  }

  it('asks before replacing it, and keeps it until the host chooses', async () => {
    const page = await hostInTheWizard();
    const other = await pages.link(['assistant'], { name: 'Someone Else' });

    const response = await page.goto(other);
    await screenshot(page, '14-session-choice');

    expect(response?.status()).toBe(200);
    expect(await page.textContent('h1')).toBe('You have a setup in progress');
    expect(await page.textContent('main')).toContain('Someone Else');
    await page.getByRole('link', { name: 'Continue my setup' }).click();
    await page.waitForURL(/onboarding/);
    expect(await propertyInSession(page)).toBe('The First Host’s Place');

    await page.goto(other);
    await page.getByRole('button', { name: 'Start with the new link' }).click();
    await page.waitForURL(/marketplace$/);
    expect(await page.textContent('h1')).toBe('Welcome, Someone Else');
  });

  it('a page of another site can neither replace it with a GET nor with a POST', async () => {
    const page = await hostInTheWizard();
    const origin = wizardOrigin(page);
    const other = new URL(await pages.link(['assistant'], { name: 'Someone Else' }));
    await page.context().route('https://elsewhere.example/**', (route) =>
      route.fulfill({
        contentType: 'text/html',
        body: `<!doctype html><a id="open" href="${other}">open</a>
          <form id="post" method="post" action="${origin}${other.pathname}">
            <input name="token" value="${other.searchParams.get('token')}"><button>post</button></form>`,
      }),
    );

    await page.goto('https://elsewhere.example/');
    await Promise.all([page.waitForURL(/activate/), page.click('#open')]);
    expect(await page.textContent('h1')).toBe('You have a setup in progress');
    await page.goto('https://elsewhere.example/');
    const [posted] = await Promise.all([
      page.waitForResponse((candidate) => candidate.request().method() === 'POST'),
      page.click('#post button'),
    ]);

    expect(posted.status()).toBe(403);
    await page.goto(`${origin}/partner/${pages.partner.slug}/onboarding`);
    expect(await propertyInSession(page)).toBe('The First Host’s Place');
  });

  it('reopening their own link carries the host on where they left: the next step, then Done', async () => {
    const page = await pages.newPage(ACTIVATION_VIEWPORT);
    const products: ProductId[] = ['assistant', 'upsells'];
    const own = await pages.link(products, { name: 'Casa Ritorno' });
    await page.goto(own);
    await page.getByRole('button', { name: 'Activate selected products' }).click();
    await page.waitForURL(/onboarding$/);
    await walkWizard(page, products, { to: 'faqs' });

    await page.goto(own);
    const midway = await stepOn(page);
    await walkWizard(page, products);
    await page.goto(own);
    const finished = await stepOn(page);
    const other = await pages.link(['assistant'], { name: 'Someone Else' });
    await page.goto(other);
    const choice = { title: await page.textContent('h1'), text: await page.textContent('main') };
    await page.getByRole('link', { name: en.openMySetup }).click();
    await page.waitForURL(/onboarding\?step=done$/);

    expect(midway).toBe('faqs');
    expect(finished).toBe('done');
    expect(await page.getByRole('link', { name: en.changeAnswers }).getAttribute('href')).toBe(
      'onboarding?step=review',
    );
    expect(choice.title).toBe(en.sessionDoneTitle);
    expect(choice.text).not.toContain('in progress');
    expect(await stepOn(page)).toBe('done');
  });

  it('goes on with the setup when the host reopens their own link after it expired', async () => {
    // Prepare: a link that expires seconds after the host used it; their session outlives it.
    const page = await pages.newPage(ACTIVATION_VIEWPORT);
    const expiresAt = Date.now() + 8_000;
    const own = await pages.link(['assistant'], { mintedAt: expiresAt - 3_600_000 });
    await page.goto(own);
    await page.getByRole('button', { name: 'Activate selected products' }).click();
    await page.waitForURL(/onboarding$/);
    await new Promise((resolve) => setTimeout(resolve, Math.max(0, expiresAt - Date.now() + 1_000)));

    // Act
    const reopened = await page.goto(own);

    // Assess
    expect(reopened?.status()).toBe(200);
    // Where the host left: the first step, which they had not saved yet.
    expect(page.url()).toMatch(/onboarding\?step=details$/);
  });

  it('asks too when the link spells the partner’s address another way', async () => {
    // Prepare: `%2D` routes as `-`; a cookie scoped to the folder the browser saw would be another one.
    const page = await hostInTheWizard();
    const other = new URL(await pages.link(['assistant'], { name: 'Someone Else' }));
    const respelled = other.href.replace(
      `/partner/${pages.partner.slug}/`,
      `/partner/${pages.partner.slug.replace('-', '%2D')}/`,
    );
    expect(respelled).not.toBe(other.href);

    // Act
    await page.goto(respelled);

    // Assess
    expect(await page.textContent('h1')).toBe('You have a setup in progress');
  });

  it('refuses a replacement posted without the session’s CSRF token', async () => {
    const page = await hostInTheWizard();
    const other = new URL(await pages.link(['assistant']));

    const status = await page.evaluate(
      async ({ path, token }) =>
        (await fetch(path, { method: 'POST', body: new URLSearchParams({ token, csrf: 'forged' }) })).status,
      { path: other.pathname, token: other.searchParams.get('token') ?? '' },
    );

    expect(status).toBe(403);
    expect(await propertyInSession(page)).toBe('The First Host’s Place');
  });
});
