import { randomBytes } from 'node:crypto';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect } from 'vitest';
import { mintActivationToken } from '../../core/domain/activation-token';
import type { ProductId } from '../../core/domain/catalog';
import { unseal } from '../../lambdas/common/secret-box';
import { loadServiceKey } from '../../lambdas/common/service-secrets';
import { getKnowledgeBase } from '../../lambdas/data/knowledge-base';
import { getSealedSigningSecret } from '../../lambdas/data/partners';
import { getPropertyIdForPmsHotel } from '../../lambdas/data/properties';
import type { Messages } from '../../lambdas/pages/messages';
import { CATALOGUES } from '../../lambdas/pages/messages';
import type { WizardContext } from '../../lambdas/pages/wizard-step';
import type { WizardStepId } from '../../lambdas/pages/wizard-steps';
import { wizardStepsFor } from '../../lambdas/pages/wizard-steps';
import { createActivationLink } from '../../operations/links';
import { launchChromium, VIEWPORTS } from './browser';
import type { TestPartner } from './partners';
import { approvedPartner, testTarget } from './partners';
import type { WalkOptions } from './wizard';
import { continueButton, walkWizard } from './wizard';

/**
 * What the browser files of the host pages share (`test/browser/host-pages*.test.ts`,
 * `activation*.test.ts`): one
 * Chromium and one partner per file, links of that partner for a new host each, and the walk of a
 * whole flow as a host.
 */

/** The window the activation files look at the pages in: a large phone's. */
export const ACTIVATION_VIEWPORT = { viewport: { width: 420, height: 900 } } as const;

/** The property name every link of these files claims: the marketplace greets it. */
export const CLAIMED_NAME = 'Casa Verde';

/** What a link claims of its host, and when it was minted. */
export interface LinkedHost {
  readonly email?: string;
  readonly name?: string;
  readonly pmsHotelId?: string;
  readonly slug?: string;
  readonly mintedAt?: number;
}

/** A host-pages file's partner, browser and links; `hostPages()` sets them up around the file. */
export interface HostPages {
  readonly partner: TestPartner;
  /**
   * A new activation link for these products, of this file's partner unless `host.slug` names
   * another, for a new host named `CLAIMED_NAME` unless `host` says otherwise, minted now unless
   * `mintedAt` says when.
   */
  link(products: readonly ProductId[], host?: LinkedHost): Promise<string>;
  /** A page in a new browser context: English and a phone's width unless told otherwise. */
  newPage(options?: { acceptLanguage?: string; viewport?: { width: number; height: number } }): Promise<Page>;
  /**
   * Opens a link (a new one for these products unless given) and walks the whole flow as a host:
   * the marketplace, then the wizard's steps for these products (`walkWizard`), to the closing
   * page. `look` runs on every page before the host acts on it. Returns the steps shown, in order.
   */
  walk(
    page: Page,
    products: readonly ProductId[],
    options?: Omit<WalkOptions, 'look'> & { url?: string; look?: (name: string) => Promise<void> },
  ): Promise<WizardStepId[]>;
  /** A link of this partner (or of `partner`) whose expiry is `expiredAtMs`, long past. */
  expiredLink(expiredAtMs: number, partner?: Pick<TestPartner, 'id' | 'slug'>): Promise<string>;
  /**
   * What the closing page says the product knows about the host's property (its `pmsHotelId`):
   * each of the host's steps in its own words for what it saved ("1 answer"), in the steps' order.
   */
  whatItKnows(
    products: readonly ProductId[],
    pmsHotelId: string,
    messages: Messages,
  ): Promise<{ known: string[]; sentence: string }>;
}

/**
 * Launches Chromium and approves a partner named `name` with `products` before the file's tests
 * (after the file's own `beforeAll` hooks registered before this call), and closes the browser
 * after them.
 */
export function hostPages(name: string, products: readonly ProductId[]): HostPages {
  let browser: Browser | undefined;
  let partner: TestPartner | undefined;
  let sequence = 0;
  beforeAll(async () => {
    [browser, partner] = await Promise.all([
      launchChromium(),
      approvedPartner({ name, products: [...products] }),
    ]);
  });
  afterAll(async () => {
    await browser?.close();
  });
  const ready = () => {
    if (!browser || !partner) throw new Error('hostPages() is used before its beforeAll ran');
    return { browser, partner };
  };

  const pages: HostPages = {
    get partner() {
      return ready().partner;
    },
    async link(linked, host = {}) {
      sequence += 1;
      const { url } = await createActivationLink(
        testTarget(),
        {
          slug: host.slug ?? ready().partner.slug,
          email: host.email ?? `host${sequence}-${randomBytes(3).toString('hex')}@example.com`,
          name: host.name ?? CLAIMED_NAME,
          pmsHotelId: host.pmsHotelId ?? `PMS-${sequence}-${randomBytes(3).toString('hex')}`,
          products: [...linked],
          ttlSeconds: 3_600,
        },
        host.mintedAt ?? Date.now(),
      );
      return url;
    },
    async newPage(options = {}) {
      const context = await ready().browser.newContext({
        viewport: options.viewport ?? VIEWPORTS.phone,
        extraHTTPHeaders: { 'Accept-Language': options.acceptLanguage ?? 'en' },
      });
      return context.newPage();
    },
    async walk(page, walked, options = {}) {
      await page.goto(options.url ?? (await pages.link(walked)));
      await options.look?.('marketplace');
      await Promise.all([page.waitForURL(/onboarding/), continueButton(page).click()]);
      return walkWizard(page, walked, options);
    },
    async expiredLink(expiredAtMs, of = ready().partner) {
      const secret = unseal((await getSealedSigningSecret(of.id)) ?? '', await loadServiceKey('sealing'));
      const { token } = mintActivationToken(
        {
          contact_email: 'late@example.com',
          contact_name: 'Late Host',
          pms_hotel_id: 'LATE-1',
          requested_product_ids: ['assistant'],
        },
        secret,
        expiredAtMs - 3_600_000,
        3_600,
      );
      const origin = new URL(await pages.link(['assistant'])).origin;
      return `${origin}/partner/${of.slug}/activate?token=${token}`;
    },
    async whatItKnows(known, pmsHotelId, messages) {
      const propertyId = await getPropertyIdForPmsHotel(ready().partner.id, pmsHotelId);
      const saved = {
        locale: { messages },
        knowledgeBase: await getKnowledgeBase(propertyId ?? 0),
      } as unknown as WizardContext;
      const phrases = wizardStepsFor(known).flatMap((step) => step.review?.known?.(saved) ?? []);
      return { known: phrases, sentence: messages.knowledgeSummary(phrases, 'Casa Verde by the Lake') };
    },
  };
  return pages;
}

export const backButton = (page: Page) => page.locator('form button[name=go][value=back]');
export const stagesOf = (page: Page) => page.locator('nav ol.steps li').allTextContents();
/** The ids of the steps a host with these products meets, in order (the step table's). */
export const stepsOf = (products: readonly ProductId[]) => wizardStepsFor(products).map((step) => step.id);
/** The values of a step's form, field by field (its hidden fields included). */
export const fieldValues = (page: Page) =>
  page
    .locator('form')
    .evaluate((form: HTMLFormElement) =>
      Array.from(
        form.querySelectorAll<HTMLInputElement>('input, textarea, select'),
        (field) => [field.name, field.value] as [string, string],
      ),
    );
export const mainText = (page: Page) => page.locator('body').innerText();

/** Every key of the catalogue is camelCase: a page that showed a raw key would show one of these. */
const RAW_KEYS = Object.keys(CATALOGUES.en);
export async function expectNoRawKey(page: Page) {
  const text = await page.locator('html').innerText();
  for (const key of RAW_KEYS) expect(text).not.toContain(key);
  expect(text).not.toMatch(/\bundefined\b|\[object Object\]|\bNaN\b/);
}
