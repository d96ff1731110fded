import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintActivationToken } from '../../core/domain/activation-token';
import type { ProductId } from '../../core/domain/catalog';
import { unseal } from '../../lambdas/common/secret-box';
import { loadServiceKey } from '../../lambdas/common/service-secrets';
import { getSealedSigningSecret } from '../../lambdas/data/partners';
import { CATALOGUES } from '../../lambdas/pages/messages';
import { wizardStepsFor } from '../../lambdas/pages/wizard-steps';
import { createActivationLink } from '../../operations/links';
import { launchChromium, screenshot } from '../support/browser';
import type { TestPartner } from '../support/partners';
import { apiGet, approvedPartner, testTarget } from '../support/partners';
import { continueButton, continueFrom, stepOn, walkWizard } from '../support/wizard';

let browser: Browser;
let partner: TestPartner;
let context: BrowserContext;
const en = CATALOGUES.en;

beforeAll(async () => {
  [browser, partner] = await Promise.all([
    launchChromium(),
    approvedPartner({ name: 'Harbour PMS', products: ['assistant', 'upsells', 'guidebook'] }),
  ]);
});
afterAll(async () => {
  await browser?.close();
});

let sequence = 0;
function uniqueHost() {
  sequence += 1;
  return { email: `host${sequence}-${Date.now()}@example.com`, pmsHotelId: `PMS-${sequence}-${Date.now()}` };
}

async function link(options: {
  email: string;
  name?: string;
  pmsHotelId: string;
  products?: ProductId[];
  slug?: string;
  /** When the link was minted (now unless a test needs one about to expire). */
  mintedAt?: number;
}) {
  const { url } = await createActivationLink(
    testTarget(),
    {
      slug: options.slug ?? partner.slug,
      email: options.email,
      name: options.name ?? 'Casa Verde',
      pmsHotelId: options.pmsHotelId,
      products: options.products ?? ['assistant', 'upsells'],
      ttlSeconds: 3_600,
    },
    options.mintedAt ?? Date.now(),
  );
  return url;
}

async function freshPage(): Promise<Page> {
  context = await browser.newContext({ viewport: { width: 420, height: 900 } });
  return context.newPage();
}

/** The partner's seats as GET /usage reports them (without the timestamp). */
async function usageSeats(): Promise<{
  hosts: { host_user_id: number; active_seats: number }[];
  active_seats: number;
}> {
  const { hosts, active_seats } = (await apiGet('/usage', partner.key)).json as never;
  return { hosts, active_seats };
}

describe('activation link in Chromium', () => {
  it('happy path: marketplace → provisioning → wizard → live, with the seats in GET /usage', async () => {
    const page = await freshPage();
    const host = uniqueHost();
    const before = await usageSeats();

    const response = await page.goto(await link({ ...host, products: ['assistant', 'upsells'] }));
    expect(response?.status()).toBe(200);
    expect(page.url()).toMatch(/\/partner\/[^/]+\/marketplace$/);
    expect(page.url()).not.toContain('token=');
    expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
    expect(response?.headers()['referrer-policy']).toBe('no-referrer');
    expect(response?.headers()['cache-control']).toBe('no-store');
    const cookie = (await context.cookies()).find((c) => c.name === `activation_session_${partner.slug}`);
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: 'Lax' });
    await expect(page.getByRole('heading', { level: 1 }).textContent()).resolves.toBe('Welcome, Casa Verde');
    expect(await page.getByRole('checkbox').count()).toBe(2);
    expect(await page.textContent('main')).not.toMatch(/[$€£]|price/i);
    await screenshot(page, '01-marketplace');

    await page.getByRole('button', { name: 'Activate selected products' }).click();
    await page.waitForURL(/onboarding$/);
    // The steps of these products, in the step table's order; this test's own answers on three.
    let shown = 0;
    await walkWizard(page, ['assistant', 'upsells'], {
      fills: {
        details: async () => {
          await page.getByLabel('Property name').fill('Casa Verde by the Lake');
          await page
            .getByLabel('Check-in instructions')
            .fill('Check in from 3 pm. The key box is left of the door, code 4711.');
        },
        faqs: async () => {
          await page.locator('#question-0').fill('Is there parking?');
          await page.locator('#answer-0').fill('Yes, two spaces behind the house.');
          await page.locator('#question-1').fill('Can I bring my dog?');
          await page.locator('#answer-1').fill('Dogs are welcome.');
        },
        upsells: async () => {
          await page.locator('#title-0').fill('Late check-out');
          await page.locator('#description-0').fill('Stay until 2 pm.');
          await page.locator('#price-0').fill('25');
          await screenshot(page, '03-wizard-upsells');
        },
      },
      look: async (step) => {
        shown += 1;
        if (step === 'done') return;
        await screenshot(page, `02-wizard-${shown}-${step}`);
        expect(await continueButton(page).textContent()).toBe(
          step === 'review' ? 'Make my assistant live' : 'Save and continue',
        );
      },
      // The browser's Back after saving the questions shows them as saved.
      left: async (step) => {
        if (step !== 'faqs') return;
        const next = page.url();
        await page.goBack();
        await page.reload();
        expect(await page.locator('#answer-1').inputValue()).toBe('Dogs are welcome.');
        await page.goto(next);
      },
    });
    expect(page.url()).toMatch(/step=done/);
    expect(await page.textContent('main')).toContain('Your assistant now answers guests.');
    await screenshot(page, '05-live');

    const after = await usageSeats();
    expect(after.active_seats - before.active_seats).toBe(2);
    const properties = (await apiGet('/properties', partner.key)).json.properties as {
      id: number;
      name: string;
    }[];
    const property = properties.find((p) => p.name === 'Casa Verde by the Lake');
    expect(property).toBeDefined();
    const signals = await apiGet(`/properties/${property?.id}/pricing-signals`, partner.key);
    expect(signals.json.signals).toMatchObject({ total_reservations: 0, occupancy_today: 0 });
  });

  it('a used link ends on a clear 410 page and provisions nothing more', async () => {
    const page = await freshPage();
    const url = await link(uniqueHost());
    await page.goto(url);
    await page.getByRole('button', { name: 'Activate selected products' }).click();
    await page.waitForURL(/onboarding$/);
    const before = await usageSeats();

    const second = await (await freshPage()).goto(url);

    expect(second?.status()).toBe(410);
    const text = await second?.text();
    expect(text).toContain('This link was already used');
    expect(text).toContain('ask Harbour PMS for a fresh link');
    await screenshot(context.pages()[0] as Page, '06-used-link');
    expect(await usageSeats()).toEqual(before);
  });

  it('an expired link ends on a clear 410 page', async () => {
    const page = await freshPage();
    const sealed = await getSealedSigningSecret(partner.id);
    const secret = unseal(sealed ?? '', await loadServiceKey('sealing'));
    const { token } = mintActivationToken(
      {
        contact_email: 'late@example.com',
        contact_name: 'Late Host',
        pms_hotel_id: 'LATE-1',
        requested_product_ids: ['assistant'],
      },
      secret,
      Date.now() - 2 * 3_600_000,
      3_600,
    );

    const response = await page.goto(
      `${new URL((await link(uniqueHost())).toString()).origin}/partner/${partner.slug}/activate?token=${token}`,
    );

    expect(response?.status()).toBe(410);
    expect(await page.textContent('h1')).toBe('This link has expired');
    expect(await page.textContent('main')).toContain('fresh link');
    await screenshot(page, '07-expired-link');
  });

  it.each([
    [
      'tampered',
      (token: string) => {
        const [payload = '', signature = ''] = token.split('.');
        const claims = JSON.parse(Buffer.from(payload, 'base64url').toString());
        claims.requested_product_ids = ['assistant', 'upsells', 'guidebook'];
        return `${Buffer.from(JSON.stringify(claims)).toString('base64url')}.${signature}`;
      },
      400,
      'This link was changed',
    ],
    ['truncated', (token: string) => token.slice(0, token.length - 10), 400, 'This link is incomplete'],
    ['garbage', () => '%3Cscript%3E', 400, 'This link is incomplete'],
  ])('a %s link ends on a clear 4xx page and provisions nothing', async (name, mangle, status, title) => {
    const page = await freshPage();
    const url = new URL(await link(uniqueHost()));
    const before = await usageSeats();

    const response = await page.goto(
      `${url.origin}${url.pathname}?token=${mangle(url.searchParams.get('token') ?? '')}`,
    );

    expect(response?.status()).toBe(status);
    expect(response?.headers()['content-type']).toContain('text/html');
    expect(await page.textContent('h1')).toBe(title);
    expect(await page.textContent('main')).toContain('fresh link');
    await screenshot(page, `08-${name}-link`);
    expect(await usageSeats()).toEqual(before);
  });

  it('a link of another partner, opened under this partner’s address, says so', async () => {
    const other = await approvedPartner({ products: ['assistant'] });
    const page = await freshPage();
    const url = new URL(await link({ ...uniqueHost(), slug: other.slug, products: ['assistant'] }));

    const response = await page.goto(`${url.origin}/partner/${partner.slug}/activate${url.search}`);

    expect(response?.status()).toBe(400);
    expect(await page.textContent('h1')).toBe('This link is for another platform');
  });

  it('the same e-mail in another letter case links to the existing host account', async () => {
    const email = `Mixed.Case-${Date.now()}@Example.com`;
    for (const [index, address] of [
      email,
      email.toLowerCase().replace('example.com', 'EXAMPLE.COM'),
    ].entries()) {
      const page = await freshPage();
      await page.goto(
        await link({ email: address, pmsHotelId: `CASE-${index}-${Date.now()}`, products: ['assistant'] }),
      );
      await page.getByRole('button', { name: 'Activate selected products' }).click();
      await page.waitForURL(/onboarding$/);
    }

    const usage = await usageSeats();
    const properties = (await apiGet('/properties', partner.key)).json.properties as unknown[];
    expect(usage.hosts.filter((host) => host.active_seats === 2).length).toBeGreaterThanOrEqual(1);
    expect(properties.length).toBeGreaterThanOrEqual(2);
    const { getHostIdByEmail } = await import('../../lambdas/data/hosts');
    const hostId = await getHostIdByEmail(email.toUpperCase());
    expect(usage.hosts.find((host) => host.host_user_id === hostId)?.active_seats).toBe(2);
  });

  it('two tabs racing and a double click provision once', async () => {
    const page = await freshPage();
    await page.goto(await link({ ...uniqueHost(), products: ['assistant', 'upsells'] }));
    const second = await context.newPage();
    await second.goto(page.url());
    const before = await usageSeats();

    await Promise.all([
      page.getByRole('button', { name: 'Activate selected products' }).dblclick(),
      second.getByRole('button', { name: 'Activate selected products' }).click(),
    ]);
    await Promise.all([page.waitForURL(/onboarding/), second.waitForURL(/onboarding/)]);

    const after = await usageSeats();
    expect(after.active_seats - before.active_seats).toBe(2);
    expect(after.hosts.length - before.hosts.length).toBe(1);
    // On the wizard's first step, whichever the step table makes it.
    expect(await second.textContent('h1')).toBe(
      wizardStepsFor(['assistant', 'upsells'])[0]?.title(CATALOGUES.en),
    );
  });

  it('whoever opened the link before the host gets no door into the host’s wizard', async () => {
    const url = await link({ ...uniqueHost(), products: ['assistant'] });
    // Someone opens the link first (a forwarded mail, a scanner that keeps cookies)...
    const early = await (await browser.newContext()).newPage();
    await early.goto(url);
    const earlyCsrf = await early.locator('input[name="csrf"]').getAttribute('value');
    // ...then the host opens it in their own browser and provisions.
    const host = await freshPage();
    await host.goto(url);
    await host.getByRole('button', { name: 'Activate selected products' }).click();
    await host.waitForURL(/onboarding$/);
    await host.goto(host.url().replace(/onboarding.*$/, 'onboarding?step=details'));
    await host.getByLabel('Property name').fill('The Host’s Own Place');
    await host
      .getByLabel('Check-in instructions')
      .fill('Only the host knows: the key is under the third pot.');
    await continueFrom(host, 'details');

    const reloaded = await early.reload();
    expect(reloaded?.status()).toBe(410);
    expect(await early.title()).toBe('This link was already used');
    // The early session's own form, valid CSRF token included, sent after the host provisioned.
    const posted = await early.evaluate(async (csrf) => {
      const response = await fetch('marketplace', {
        method: 'POST',
        body: new URLSearchParams({ product: 'assistant', csrf }),
      });
      return { status: response.status, url: response.url, text: await response.text() };
    }, earlyCsrf ?? '');
    const wizard = await early.goto(early.url().replace(/marketplace.*$/, 'onboarding?step=details'));
    await screenshot(early, '13-early-opener-refused');

    expect(posted.status).toBe(410);
    expect(posted.text).not.toContain('third pot');
    expect(wizard?.status()).not.toBe(200);
    expect(await early.textContent('main')).not.toContain('third pot');
  });

  it('never runs script from a claim or a form', async () => {
    const page = await freshPage();
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    const attack = '<img src=x onerror="window.__xss=1;alert(1)"><script>window.__xss=2</script>';

    await page.goto(await link({ ...uniqueHost(), name: attack }));

    expect(await page.textContent('h1')).toBe(`Welcome, ${attack}`);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    await page.getByRole('button', { name: 'Activate selected products' }).click();
    await page.waitForURL(/onboarding$/);
    await page.goto(page.url().replace(/onboarding.*$/, 'onboarding?step=details'));
    await page.getByLabel('Property name').fill(`</textarea>${attack}`);
    await page.getByLabel('Check-in instructions').fill(`"><script>window.__xss=3</script> from 3 pm`);
    await continueFrom(page, 'details');
    await page.goto(page.url().replace(/onboarding.*$/, 'onboarding?step=review'));
    expect(await page.textContent('.lead strong')).toBe(`</textarea>${attack}`);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(dialogs).toEqual([]);
    await screenshot(page, '09-xss-escaped');
  });

  it('refuses a form post without the session’s CSRF token', async () => {
    const page = await freshPage();
    await page.goto(await link(uniqueHost()));

    const status = await page.evaluate(
      async () =>
        (
          await fetch('marketplace', {
            method: 'POST',
            body: new URLSearchParams({ product: 'assistant', csrf: 'forged' }),
          })
        ).status,
    );

    expect(status).toBe(403);
  });

  it('a wizard answer longer than the form takes gets a 413 page naming it, and nothing is saved', async () => {
    const page = await freshPage();
    await page.goto(await link(uniqueHost()));
    await page.getByRole('button', { name: 'Activate selected products' }).click();
    await page.waitForURL(/onboarding$/);
    await walkWizard(page, ['assistant', 'upsells'], { to: 'faqs' });
    await page.locator('#question-0').fill('Is there parking?');
    // A client that ignores maxlength (a script, an old browser) sends 420,000 characters.
    await page.locator('#answer-0').evaluate((textarea: HTMLTextAreaElement) => {
      textarea.removeAttribute('maxlength');
      textarea.value = 'x'.repeat(420_000);
    });

    const [response] = await Promise.all([
      page.waitForResponse((candidate) => candidate.request().method() === 'POST'),
      page.getByRole('button', { name: 'Save and continue' }).click(),
    ]);
    await screenshot(page, '12-wizard-too-long');

    expect(response.status()).toBe(413);
    expect(await page.title()).toBe('Your text is too long');
    expect(await page.getByRole('alert').textContent()).toContain(
      'An answer has 420,000 characters; it takes at most 2,000.',
    );
    await page.goto(page.url().replace(/onboarding.*$/, 'onboarding?step=faqs'));
    expect(await page.locator('#question-0').inputValue()).toBe('');
  });
});

describe('a second link in a browser with a setup in progress', () => {
  /** A host who activated a link and is on the wizard's first step, with what they typed saved. */
  async function hostInTheWizard(): Promise<Page> {
    const page = await freshPage();
    await page.goto(await link({ ...uniqueHost(), name: 'Casa Verde', products: ['assistant'] }));
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
    const other = await link({ ...uniqueHost(), name: 'Someone Else', products: ['assistant'] });

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
    const other = new URL(await link({ ...uniqueHost(), name: 'Someone Else', products: ['assistant'] }));
    await context.route('https://elsewhere.example/**', (route) =>
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
    await page.goto(`${origin}/partner/${partner.slug}/onboarding`);
    expect(await propertyInSession(page)).toBe('The First Host’s Place');
  });

  it('reopening their own link carries the host on where they left: the next step, then Done', async () => {
    const page = await freshPage();
    const products: ProductId[] = ['assistant', 'upsells'];
    const own = await link({ ...uniqueHost(), name: 'Casa Ritorno', products });
    await page.goto(own);
    await page.getByRole('button', { name: 'Activate selected products' }).click();
    await page.waitForURL(/onboarding$/);
    await walkWizard(page, products, { to: 'faqs' });

    await page.goto(own);
    const midway = await stepOn(page);
    await walkWizard(page, products);
    await page.goto(own);
    const finished = await stepOn(page);
    const other = await link({ ...uniqueHost(), name: 'Someone Else', products: ['assistant'] });
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
    const page = await freshPage();
    const expiresAt = Date.now() + 8_000;
    const own = await link({ ...uniqueHost(), products: ['assistant'], mintedAt: expiresAt - 3_600_000 });
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
    const other = new URL(await link({ ...uniqueHost(), name: 'Someone Else', products: ['assistant'] }));
    const respelled = other.href.replace(
      `/partner/${partner.slug}/`,
      `/partner/${partner.slug.replace('-', '%2D')}/`,
    );
    expect(respelled).not.toBe(other.href);

    // Act
    await page.goto(respelled);

    // Assess
    expect(await page.textContent('h1')).toBe('You have a setup in progress');
  });

  it('refuses a replacement posted without the session’s CSRF token', async () => {
    const page = await hostInTheWizard();
    const other = new URL(await link({ ...uniqueHost(), products: ['assistant'] }));

    const status = await page.evaluate(
      async ({ path, token }) =>
        (await fetch(path, { method: 'POST', body: new URLSearchParams({ token, csrf: 'forged' }) })).status,
      { path: other.pathname, token: other.searchParams.get('token') ?? '' },
    );

    expect(status).toBe(403);
    expect(await propertyInSession(page)).toBe('The First Host’s Place');
  });
});
