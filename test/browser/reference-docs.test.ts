import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
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
    expect(blocked.filter((text) => !/cdn\.redoc|cdn\.redocly/.test(text))).toEqual([]);
  }, 120_000);
});
