import type { Server } from 'node:http';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LANGUAGES } from '../../core/domain/languages';
import { FIREWALL_BODY_LIMIT_BYTES } from '../../lambdas/pages/firewall-page';
import { CATALOGUES } from '../../lambdas/pages/messages';
import { stageSettings } from '../../lib/stage-config';
import { launchChromium, screenshot, seriousAccessibilityViolations } from '../support/browser';
import { synthesizedTemplate } from '../support/iam';

interface WebAcl {
  Rules: {
    Name: string;
    Action?: { Block?: { CustomResponse: { ResponseHeaders: { Name: string; Value: string }[] } } };
  }[];
  CustomResponseBodies: Record<string, { ContentType: string; Content: string }>;
}

/** The pages' web ACL of the synthesized production stack: the 429 a throttled host gets, as deployed. */
function deployedThrottledPage(): { headers: Record<string, string>; body: string } {
  const template = synthesizedTemplate('production');
  const acls = Object.entries(template.Resources)
    .filter(([id, resource]) => resource.Type === 'AWS::WAFv2::WebACL' && id.startsWith('Pages'))
    .map(([, resource]) => resource.Properties as unknown as WebAcl);
  expect(acls).toHaveLength(1);
  const acl = acls[0] as WebAcl;
  const rule = acl.Rules.find((candidate) => candidate.Name === 'requests-per-ip');
  const headers = rule?.Action?.Block?.CustomResponse.ResponseHeaders ?? [];
  const body = acl.CustomResponseBodies.throttled;
  expect(body?.ContentType).toBe('TEXT_HTML');
  return {
    headers: Object.fromEntries(headers.map((header) => [header.Name, header.Value])),
    body: body?.Content ?? '',
  };
}

let browser: Browser;
let server: Server;
let url: string;
beforeAll(async () => {
  const { headers, body } = deployedThrottledPage();
  // Answers as WAF does for a TEXT_HTML body: the configured status, headers and body.
  server = createServer((_request, response) => {
    response.writeHead(429, { ...headers, 'Content-Type': 'text/html' }).end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/partner/lighthouse/activate?token=x`;
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await new Promise((resolve) => server?.close(resolve));
});

describe("the web firewall's 429 page in Chromium", () => {
  it('tells a throttled host what happened and how long to wait, styled under its own strict CSP', async () => {
    const page = await (await browser.newContext()).newPage();
    const problems: string[] = [];
    page.on('console', (message) => {
      // The document's own 429 is logged as a failed load; anything else (a CSP refusal) is a defect.
      const expected = message.text().includes('status of 429');
      if (!expected && (message.type() === 'error' || message.type() === 'warning'))
        problems.push(message.text());
    });
    page.on('pageerror', (error) => problems.push(error.message));

    const response = await page.goto(url);
    await screenshot(page, '40-firewall-throttled');

    expect(response?.status()).toBe(429);
    expect(response?.headers()['retry-after']).toBe(
      String(stageSettings.production.firewall.pages.windowSeconds),
    );
    expect(await page.title()).toBe('Too many requests from your network');
    await expect(page.getByRole('alert').textContent()).resolves.toContain(
      'Wait a minute, then reload this page',
    );
    // The style sheet applies only if the CSP hash matches it; a refused style leaves `main` unbounded.
    expect(await page.locator('main').evaluate((main) => getComputedStyle(main).maxWidth)).toBe('640px');
    expect(problems).toEqual([]);
  });

  it('says the same in every language of the host pages, within the 4 KB a web ACL response body may hold', async () => {
    const { body } = deployedThrottledPage();
    const page = await (await browser.newContext()).newPage();
    await page.goto(url);

    expect(Buffer.byteLength(body, 'utf8')).toBeLessThanOrEqual(FIREWALL_BODY_LIMIT_BYTES);
    for (const language of LANGUAGES.filter((candidate) => candidate !== 'en')) {
      const section = page.locator(`section[lang=${language}]`);
      await expect(section.locator('h2').textContent()).resolves.toBe(CATALOGUES[language].firewallTitle);
    }
    expect(await page.locator('section[lang=de]').textContent()).toContain('Warten Sie 1 Minute');
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await screenshot(page, '41-firewall-throttled-all-languages');
  });
});
