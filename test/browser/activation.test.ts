import { describe, expect, it } from 'vitest';
import { CATALOGUES } from '../../lambdas/pages/messages';
import { wizardStepsFor } from '../../lambdas/pages/wizard-steps';
import { screenshot } from '../support/browser';
import { ACTIVATION_VIEWPORT, hostPages } from '../support/host-pages';
import { apiGet, approvedPartner } from '../support/partners';
import { continueButton, continueFrom, walkWizard } from '../support/wizard';

/**
 * An activation link in Chromium: the happy path to a live assistant and the seats it counts,
 * and every way a link or a form can be wrong. A second link in a browser with a setup in
 * progress: `activation-second-link.test.ts`.
 */

const pages = hostPages('Harbour PMS', ['assistant', 'upsells', 'guidebook']);

/** The partner's seats as GET /usage reports them (without the timestamp). */
async function usageSeats(): Promise<{
  hosts: { host_user_id: number; active_seats: number }[];
  active_seats: number;
}> {
  const { hosts, active_seats } = (await apiGet('/usage', pages.partner.key)).json as never;
  return { hosts, active_seats };
}
describe('activation link in Chromium', () => {
  it('happy path: marketplace → provisioning → wizard → live, with the seats in GET /usage', async () => {
    const page = await pages.newPage(ACTIVATION_VIEWPORT);
    const before = await usageSeats();

    const response = await page.goto(await pages.link(['assistant', 'upsells']));
    expect(response?.status()).toBe(200);
    expect(page.url()).toMatch(/\/partner\/[^/]+\/marketplace$/);
    expect(page.url()).not.toContain('token=');
    expect(response?.headers()['content-security-policy']).toContain("default-src 'none'");
    expect(response?.headers()['referrer-policy']).toBe('no-referrer');
    expect(response?.headers()['cache-control']).toBe('no-store');
    const cookie = (await page.context().cookies()).find(
      (c) => c.name === `activation_session_${pages.partner.slug}`,
    );
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
    const properties = (await apiGet('/properties', pages.partner.key)).json.properties as {
      id: number;
      name: string;
    }[];
    const property = properties.find((p) => p.name === 'Casa Verde by the Lake');
    expect(property).toBeDefined();
    const signals = await apiGet(`/properties/${property?.id}/pricing-signals`, pages.partner.key);
    expect(signals.json.signals).toMatchObject({ total_reservations: 0, occupancy_today: 0 });
  });

  it('a used link ends on a clear 410 page and provisions nothing more', async () => {
    const page = await pages.newPage(ACTIVATION_VIEWPORT);
    const url = await pages.link(['assistant', 'upsells']);
    await page.goto(url);
    await page.getByRole('button', { name: 'Activate selected products' }).click();
    await page.waitForURL(/onboarding$/);
    const before = await usageSeats();

    const secondPage = await pages.newPage(ACTIVATION_VIEWPORT);
    const second = await secondPage.goto(url);

    expect(second?.status()).toBe(410);
    const text = await second?.text();
    expect(text).toContain('This link was already used');
    expect(text).toContain('ask Harbour PMS for a fresh link');
    await screenshot(secondPage, '06-used-link');
    expect(await usageSeats()).toEqual(before);
  });

  it('an expired link ends on a clear 410 page', async () => {
    const page = await pages.newPage(ACTIVATION_VIEWPORT);
    const response = await page.goto(await pages.expiredLink(Date.now() - 3_600_000));

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
    const page = await pages.newPage(ACTIVATION_VIEWPORT);
    const url = new URL(await pages.link(['assistant', 'upsells']));
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
    const page = await pages.newPage(ACTIVATION_VIEWPORT);
    const url = new URL(await pages.link(['assistant'], { slug: other.slug }));

    const response = await page.goto(`${url.origin}/partner/${pages.partner.slug}/activate${url.search}`);

    expect(response?.status()).toBe(400);
    expect(await page.textContent('h1')).toBe('This link is for another platform');
  });

  it('the same e-mail in another letter case links to the existing host account', async () => {
    const email = `Mixed.Case-${Date.now()}@Example.com`;
    for (const [index, address] of [
      email,
      email.toLowerCase().replace('example.com', 'EXAMPLE.COM'),
    ].entries()) {
      const page = await pages.newPage(ACTIVATION_VIEWPORT);
      await page.goto(
        await pages.link(['assistant'], { email: address, pmsHotelId: `CASE-${index}-${Date.now()}` }),
      );
      await page.getByRole('button', { name: 'Activate selected products' }).click();
      await page.waitForURL(/onboarding$/);
    }

    const usage = await usageSeats();
    const properties = (await apiGet('/properties', pages.partner.key)).json.properties as unknown[];
    expect(usage.hosts.filter((host) => host.active_seats === 2).length).toBeGreaterThanOrEqual(1);
    expect(properties.length).toBeGreaterThanOrEqual(2);
    const { getHostIdByEmail } = await import('../../lambdas/data/hosts');
    const hostId = await getHostIdByEmail(email.toUpperCase());
    expect(usage.hosts.find((host) => host.host_user_id === hostId)?.active_seats).toBe(2);
  });

  it('two tabs racing and a double click provision once', async () => {
    const page = await pages.newPage(ACTIVATION_VIEWPORT);
    await page.goto(await pages.link(['assistant', 'upsells']));
    const second = await page.context().newPage();
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
    const url = await pages.link(['assistant']);
    // Someone opens the link first (a forwarded mail, a scanner that keeps cookies)...
    const early = await pages.newPage(ACTIVATION_VIEWPORT);
    await early.goto(url);
    const earlyCsrf = await early.locator('input[name="csrf"]').getAttribute('value');
    // ...then the host opens it in their own browser and provisions.
    const host = await pages.newPage(ACTIVATION_VIEWPORT);
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
    const page = await pages.newPage(ACTIVATION_VIEWPORT);
    const dialogs: string[] = [];
    page.on('dialog', (dialog) => {
      dialogs.push(dialog.message());
      void dialog.dismiss();
    });
    const attack = '<img src=x onerror="window.__xss=1;alert(1)"><script>window.__xss=2</script>';

    await page.goto(await pages.link(['assistant', 'upsells'], { name: attack }));

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
    const page = await pages.newPage(ACTIVATION_VIEWPORT);
    await page.goto(await pages.link(['assistant', 'upsells']));

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
    const page = await pages.newPage(ACTIVATION_VIEWPORT);
    await page.goto(await pages.link(['assistant', 'upsells']));
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
