import { mkdir, readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Browser, Page } from 'playwright-core';
import { chromium } from 'playwright-core';

/** Debian's Chromium, headless, with the flags that keep it off the network. */
export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
      '--disable-quic',
    ],
  });
}

export const SCREENSHOT_DIRECTORY = join('test-artifacts', 'screenshots');

/** Saves a full-page screenshot as a test artifact (`name` may hold folders). */
export async function screenshot(page: Page, name: string): Promise<string> {
  const path = join(SCREENSHOT_DIRECTORY, `${name}.png`);
  await mkdir(dirname(path), { recursive: true });
  await page.screenshot({ path, fullPage: true });
  return path;
}

/** The two widths every host page is looked at: a laptop and a phone (CSS pixels). */
export const VIEWPORTS = {
  desktop: { width: 1280, height: 800 },
  phone: { width: 390, height: 844 },
} as const;

/**
 * What is laid out wrong on a page: the page scrolls sideways, or an element's text runs out of
 * its box (wider content than the box, or a box past the right edge of the window). Form fields
 * scroll their own text and are left out.
 */
export function layoutProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const problems: string[] = [];
    const width = document.documentElement.clientWidth;
    if (document.documentElement.scrollWidth > width)
      problems.push(
        `the page scrolls sideways: ${document.documentElement.scrollWidth} px wide in ${width} px`,
      );
    const describe = (element: Element) =>
      `<${element.tagName.toLowerCase()}${element.id ? `#${element.id}` : ''}> "${(element.textContent ?? '').trim().slice(0, 40)}"`;
    for (const element of Array.from(document.body.querySelectorAll('*'))) {
      if (['INPUT', 'TEXTAREA', 'SELECT', 'OPTION', 'SCRIPT', 'STYLE'].includes(element.tagName)) continue;
      const box = element.getBoundingClientRect();
      if (box.width === 0 && box.height === 0) continue;
      if (element.scrollWidth > element.clientWidth + 1 && element.clientWidth > 0)
        problems.push(
          `${describe(element)} overflows its box: ${element.scrollWidth} px in ${element.clientWidth} px`,
        );
      if (box.right > width + 1)
        problems.push(`${describe(element)} ends at ${Math.round(box.right)} px, past ${width} px`);
    }
    return problems;
  });
}

let axeSource: Promise<string> | undefined;

/** axe-core's violations of impact serious or critical on the page, one line each. */
export async function seriousAccessibilityViolations(page: Page): Promise<string[]> {
  axeSource ??= readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  // Evaluated through the DevTools protocol, which the page's CSP (no inline script) does not govern;
  // once per document (a resized page keeps it).
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(await axeSource);
  const violations = await page.evaluate(async () => {
    const { axe } = window as unknown as {
      axe: {
        run(options: object): Promise<{
          violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[];
        }>;
      };
    };
    return (await axe.run({ resultTypes: ['violations'] })).violations;
  });
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.impact} ${violation.id}: ${violation.help} (${violation.nodes.map((node) => node.target.join(' ')).join(', ')})`,
    );
}
