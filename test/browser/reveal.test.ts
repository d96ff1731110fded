import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvePartner } from '../../operations/partners';
import { launchChromium, screenshot } from '../support/browser';
import { apiGet, testTarget, uniqueSlug } from '../support/partners';

let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
});

async function approve() {
  const slug = uniqueSlug('reveal');
  const { result } = await approvePartner(
    testTarget(),
    {
      name: 'Lighthouse PMS',
      slug,
      email: `api@${slug}.example`,
      products: ['assistant'],
      scopes: ['revenue:read'],
    },
    Date.now(),
  );
  return result;
}

describe('one-time key reveal in Chromium', () => {
  it('decrypts the key in the browser once; the key works; a second visit says it was shown', async () => {
    const approval = await approve();
    const page = await (await browser.newContext()).newPage();

    const opened = await page.goto(approval.reveal_url);
    const earlierTab = await (await browser.newContext()).newPage();
    await earlierTab.goto(approval.reveal_url);
    expect(opened?.status()).toBe(200);
    // "Ask us" names how: the address our mail comes from (the stage's sender; partners@localhost
    // on the local server, the synthesized stage's in the deployed bundles).
    const contact = (await page.locator('main a[href^="mailto:"]').textContent()) ?? '';
    expect(contact).toMatch(/^[^\s@]+@[^\s@]+$/);
    await screenshot(page, '10-reveal-ready');
    await page.getByRole('button', { name: 'Reveal key' }).click();
    await page.locator('#revealed').waitFor({ state: 'visible' });
    const key = (await page.locator('#key').textContent()) ?? '';
    await screenshot(page, '11-reveal-shown');

    expect(key).toMatch(/^svc_[0-9A-Za-z]{46}$/);
    // Once revealed, the page no longer asks to reveal it.
    expect(await page.locator('main').innerText()).not.toContain('then reveal it');
    expect(key.startsWith(approval.key_prefix)).toBe(true);
    expect(page.url()).not.toContain('#');
    expect((await apiGet('/usage', key)).status).toBe(200);
    const again = await (await browser.newContext()).newPage();
    const second = await again.goto(approval.reveal_url);
    expect(second?.status()).toBe(410);
    expect(await again.textContent('h1')).toBe('Key already shown');
    expect(await again.getByRole('link', { name: contact }).getAttribute('href')).toBe(`mailto:${contact}`);
    await screenshot(again, '10-reveal-already-shown');
    // A tab opened before the reveal hears the same from the page's script, with the address.
    await earlierTab.getByRole('button', { name: 'Reveal key' }).click();
    await earlierTab.locator('#status', { hasText: 'already shown' }).waitFor();
    expect(await earlierTab.locator('#status').textContent()).toContain(`write to ${contact}`);
  });

  it('copies the key with one click and shows the API base URL it works on', async () => {
    const approval = await approve();
    const context = await browser.newContext();
    await context.grantPermissions(['clipboard-read', 'clipboard-write']);
    const page = await context.newPage();

    await page.goto(approval.reveal_url);
    await page.getByRole('button', { name: 'Reveal key' }).click();
    // The key is decrypted and the clipboard written asynchronously: wait for each, as a person would.
    await page.locator('#key', { hasText: approval.key_prefix }).waitFor();
    await page.getByRole('button', { name: 'Copy key' }).click();
    await page.locator('#status', { hasText: 'Copied' }).waitFor({ timeout: 10_000 });
    const copied = await page.evaluate(() => navigator.clipboard.readText());

    expect(copied).toBe(await page.locator('#key').textContent());
    expect(copied.startsWith(approval.key_prefix)).toBe(true);
    expect(await page.locator('#base-url').textContent()).toBe(testTarget().apiBaseUrl);
    await context.close();
  });

  it('refuses a link whose secret was cut short, and spends nothing', async () => {
    const approval = await approve();
    const page = await (await browser.newContext()).newPage();

    await page.goto(approval.reveal_url.slice(0, -5));
    await page.getByRole('button', { name: 'Reveal key' }).click();

    await expect(page.locator('#status').textContent()).resolves.toContain('incomplete');
    const whole = await (await browser.newContext()).newPage();
    await whole.goto(approval.reveal_url);
    await whole.getByRole('button', { name: 'Reveal key' }).click();
    await whole.locator('#revealed').waitFor({ state: 'visible' });
    expect(await whole.locator('#key').textContent()).toMatch(/^svc_/);
  });
});
