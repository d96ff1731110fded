import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { senderAddress } from '../../lib/stage-config';
import { FROM_LOCAL } from '../../operations/mailer';
import { launchChromium, screenshot } from '../support/browser';

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

describe('API reference page', () => {
  it('renders the OpenAPI document offline, with its scripts allowed by hash and nothing else', async () => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    const blocked: string[] = [];
    let hydrated = false;
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) blocked.push(message.text());
      if (message.text().includes('Redoc')) hydrated = true;
    });

    const response = await page.goto(`${inject('apiBaseUrl')}/docs`, { timeout: 60_000 });
    await page
      .getByRole('heading', { name: /Partner data API/ })
      .first()
      .waitFor();
    await expect.poll(() => hydrated, { timeout: 30_000 }).toBe(true);
    await screenshot(page, '12-api-reference');

    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toMatch(/script-src 'sha256-/);
    expect(await page.textContent('body')).toContain(
      'Pricing signals and reservation statistics of one property',
    );
    expect(await page.textContent('body')).not.toMatch(/webhook subscription|POST \/properties/i);
    // Nothing the page asks for is refused (Redoc's own logo from its CDN was, once).
    expect(blocked).toEqual([]);
    // How partners reach us: the server's one support address, as the reveal page names it.
    const support = senderAddress(FROM_LOCAL);
    expect(await page.getByRole('link', { name: support }).first().getAttribute('href')).toBe(
      `mailto:${support}`,
    );
  }, 120_000);

  it('shows the document’s own examples for successes, never invented values', async () => {
    const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
    await page.goto(`${inject('apiBaseUrl')}/docs#tag/Partner-data/operation/pricingSignals`, {
      timeout: 60_000,
    });
    // A value of the pricing-signals example at the depth Redoc expands its samples to.
    await page.getByText('29.4').first().waitFor({ timeout: 30_000 });
    // What a reader sees (not the scripts, which embed the whole document).
    const text = await page.innerText('body');

    expect(text).toContain('avg_lead_time_days');
    expect(text).toContain('29.4');
    // Redoc's invented values for maps without an example.
    expect(text).not.toContain('property1');
  }, 120_000);
});

describe('the pages host root', () => {
  it('says what the host is and leads to the API reference', async () => {
    const page = await (await browser.newContext()).newPage();

    const response = await page.goto(`${inject('activationBaseUrl')}/`);
    await screenshot(page, '13-pages-root');

    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-type']).toMatch(/^text\/html/);
    await page.getByRole('heading', { name: 'Partner pages' }).waitFor();
    if (process.env.PARTNER_API_BUNDLES) {
      // The sandbox bundles, as deployed: the API has its own https host, which only AWS knows (its
      // API_BASE_URL is left out locally), so the page says where the document is from the base URL.
      expect(await page.locator('main').innerText()).toContain('{base_url}/openapi.json');
      return;
    }
    expect(await page.getByRole('link', { name: 'OpenAPI document' }).getAttribute('href')).toBe(
      '/partner-api/v1/openapi.json',
    );
    await page.getByRole('link', { name: 'API reference' }).click();
    await page
      .getByRole('heading', { name: /Partner data API/ })
      .first()
      .waitFor({ timeout: 60_000 });
    expect(new URL(page.url()).pathname).toBe('/partner-api/v1/docs');
  }, 120_000);
});
