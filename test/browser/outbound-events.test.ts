import { randomBytes } from 'node:crypto';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ProductId } from '../../core/domain/catalog';
import { DEFAULT_CATALOG, productIn } from '../../core/domain/catalog';
import { getHostIdByEmail } from '../../lambdas/data/hosts';
import { getPropertyIdForPmsHotel } from '../../lambdas/data/properties';
import { CATALOGUES } from '../../lambdas/pages/messages';
import { WIZARD_FINISH } from '../../lambdas/pages/wizard-steps';
import type { SentEvent } from '../../operations/events';
import { createActivationLink } from '../../operations/links';
import {
  launchChromium,
  layoutProblems,
  screenshot,
  seriousAccessibilityViolations,
  VIEWPORTS,
} from '../support/browser';
import { expectContractEvent, holdEnrichment, sentEvents, suiteAws, untilListed } from '../support/outbound';
import type { TestPartner } from '../support/partners';
import { approvedPartner, testTarget } from '../support/partners';
import {
  continueButton,
  continueFrom,
  saysOnTheirWay,
  untilAnswersSent,
  walkWizard,
} from '../support/wizard';

/*
 * What the platform hears of a host who uses the pages in Chromium (`npm run admin -- events sent`,
 * the outbox the pipe delivers from): the activation and the wizard's submissions, with the values
 * typed and the pages' language; and the closing page, which says what is true of them: sent, on
 * their way, or changed since and not sent (docs/design/host-pages.md#the-done-page). Screenshots
 * of its three states at phone and desktop widths in test-artifacts/screenshots/outbound/.
 */

let browser: Browser;
let partner: TestPartner;
const contexts: BrowserContext[] = [];
const PRODUCTS: ProductId[] = ['assistant', 'upsells'];
const de = CATALOGUES.de;
const assistant = DEFAULT_CATALOG.find((product) => product.id === 'assistant');
const assistantDe = assistant ? productIn(assistant, 'de') : undefined;
const LIVE_DE = assistantDe?.goesLive?.liveMessage ?? '';

beforeAll(async () => {
  [browser, partner] = await Promise.all([
    launchChromium(),
    approvedPartner({ name: 'Seeblick PMS', products: ['assistant', 'upsells'] }),
  ]);
});
afterAll(async () => {
  await browser?.close();
});

async function germanPage(): Promise<Page> {
  const context = await browser.newContext({
    viewport: VIEWPORTS.phone,
    extraHTTPHeaders: { 'Accept-Language': 'de-DE,de;q=0.9' },
  });
  contexts.push(context);
  return context.newPage();
}

/** Opens a link of the partner for this host and activates the products: on the wizard's first step. */
async function activate(page: Page, host: { email: string; name: string; pmsHotelId: string }) {
  const { url } = await createActivationLink(
    testTarget(),
    { slug: partner.slug, ...host, products: PRODUCTS, ttlSeconds: 3_600 },
    Date.now(),
  );
  await page.goto(url);
  await Promise.all([page.waitForURL(/onboarding$/), continueButton(page).click()]);
}

/** The closing page at both widths: a screenshot each, nothing out of its box, axe-core clean. */
async function lookAtClosingPage(page: Page, state: string) {
  const problems: string[] = [];
  for (const [width, viewport] of Object.entries(VIEWPORTS)) {
    await page.setViewportSize(viewport);
    await screenshot(page, `outbound/done-${state}-${width}`);
    for (const problem of await layoutProblems(page)) problems.push(`${state} ${width}: ${problem}`);
    for (const violation of await seriousAccessibilityViolations(page))
      problems.push(`${state} ${width}: ${violation}`);
  }
  await page.setViewportSize(VIEWPORTS.phone);
  expect(problems).toEqual([]);
}

const mainText = (page: Page) => page.locator('main').innerText();

describe('a host in a German browser, as the platform hears of it', () => {
  it('events sent holds what was typed; a change sends the next version; the closing page says what is true', async () => {
    // Prepare
    const host = {
      email: `Anna.Berg.${randomBytes(3).toString('hex')}@seeblick.example`,
      name: 'Anna Berg',
      pmsHotelId: `SEE-${randomBytes(4).toString('hex')}`,
    };
    const checkin = 'Check-in ab 15 Uhr.\nDer Schlüssel liegt im Kasten links der Tür, Code 4711.';
    const page = await germanPage();

    // Act: the activation, and the wizard to its end, typed as a host types.
    await activate(page, host);
    await walkWizard(page, PRODUCTS, {
      fills: {
        details: async () => {
          await page.locator('#property_name').fill('Haus Seeblick');
          await page.locator('#checkin_instructions').fill(checkin);
        },
        faqs: async () => {
          await page.locator('#question-0').fill('Gibt es Parkplätze?');
          await page.locator('#answer-0').fill('Ja, zwei Stellplätze hinter dem Haus.');
          await page.locator('#question-1').fill('Sind Hunde erlaubt?');
          await page.locator('#answer-1').fill('Ja, gegen Aufpreis.');
        },
        upsells: async () => {
          await page.locator('#title-0').fill('Frühstück');
          await page.locator('#description-0').fill('Im Garten, ab 7 Uhr.');
          await page.locator('#price-0').fill('12,50');
          await page.locator('#title-1').fill('Fahrradverleih');
          await page.locator('#price-1').fill('25');
        },
      },
    });

    // Assess: the closing page says the answers were sent, and they were.
    expect(await mainText(page)).toContain(LIVE_DE);
    const hostId = await getHostIdByEmail(host.email);
    const propertyId = await getPropertyIdForPmsHotel(partner.id, host.pmsHotelId);
    const first = await sentEvents('--host', String(hostId));
    for (const event of first) expectContractEvent(event);
    expect(first.map((event) => event['detail-type'])).toEqual(['HostProvisioned', 'KnowledgeBaseSubmitted']);
    const [provisioned, submitted] = first as [SentEvent, SentEvent];
    expect(provisioned.detail).toEqual({
      event_id: provisioned.id,
      host_user_id: hostId,
      partner_id: partner.id,
      account: 'created',
      contact_email: host.email,
      contact_name: 'Anna Berg',
      language: 'de',
      property: { property_id: propertyId, pms_hotel_id: host.pmsHotelId, name: 'Anna Berg' },
      products: PRODUCTS,
      version: 1,
      occurred_at: provisioned.time,
    });
    const knowledgeBase = {
      property_name: 'Haus Seeblick',
      checkin_instructions: checkin,
      faqs: [
        { question: 'Gibt es Parkplätze?', answer: 'Ja, zwei Stellplätze hinter dem Haus.' },
        { question: 'Sind Hunde erlaubt?', answer: 'Ja, gegen Aufpreis.' },
      ],
      offers: [
        { title: 'Frühstück', description: 'Im Garten, ab 7 Uhr.', price_minor: 1250, currency: 'EUR' },
        { title: 'Fahrradverleih', description: '', price_minor: 2500, currency: 'EUR' },
      ],
    };
    expect(submitted.detail).toEqual({
      event_id: submitted.id,
      host_user_id: hostId,
      partner_id: partner.id,
      property_id: propertyId,
      first_submission: true,
      language: 'de',
      knowledge_base: knowledgeBase,
      version: 1,
      occurred_at: submitted.time,
    });
    // What the page said: taken for delivery.
    expect(submitted.sent_at).not.toBeNull();

    // Act: a new link from the partner, one answer changed, "Save my changes".
    const again = await germanPage();
    await activate(again, host);
    await walkWizard(again, PRODUCTS, {
      keepSaved: true,
      fills: { faqs: async () => again.locator('#answer-1').fill('Ja, kleine Hunde ohne Aufpreis.') },
      look: async (step) => {
        if (step === 'review') expect(await continueButton(again).textContent()).toBe(de.saveChanges);
      },
    });

    // Assess: sent as the next version, no longer the first submission; the page says so.
    expect(await mainText(again)).toContain(LIVE_DE);
    expect(await mainText(again)).not.toContain(de.unsentChanges);
    await lookAtClosingPage(again, 'sent');
    const changed = await sentEvents('--host', String(hostId));
    for (const event of changed) expectContractEvent(event);
    expect(changed.map((event) => [event['detail-type'], event.version])).toEqual([
      ['HostProvisioned', 1],
      ['KnowledgeBaseSubmitted', 1],
      ['HostProvisioned', 2],
      ['KnowledgeBaseSubmitted', 2],
    ]);
    expect(changed[2]?.detail).toMatchObject({ account: 'linked', language: 'de', version: 2 });
    expect(changed[3]?.detail).toEqual({
      ...submitted.detail,
      event_id: changed[3]?.id,
      first_submission: false,
      knowledge_base: {
        ...knowledgeBase,
        faqs: [
          knowledgeBase.faqs[0],
          { question: 'Sind Hunde erlaubt?', answer: 'Ja, kleine Hunde ohne Aufpreis.' },
        ],
      },
      version: 2,
      occurred_at: changed[3]?.time,
    });

    // Act: a step saved after the submission, then the closing page.
    await again.goto(again.url().replace(/onboarding.*$/, 'onboarding?step=faqs'));
    await again.locator('#answer-0').fill('Ja, drei Stellplätze hinter dem Haus.');
    await continueFrom(again, 'faqs');
    await again.goto(again.url().replace(/onboarding.*$/, `onboarding?step=${WIZARD_FINISH.id}`));

    // Assess: saved here, not sent, and said so, with the way back to the review.
    const notice = again.locator('main p.notice', { hasText: de.unsentChanges });
    expect(await notice.count()).toBe(1);
    // The last submission was sent: the product answers guests, from the answers it was sent.
    expect(await mainText(again)).toContain(LIVE_DE);
    await lookAtClosingPage(again, 'unsent-changes');
    expect(await sentEvents('--host', String(hostId))).toHaveLength(4);
    await Promise.all([
      again.waitForURL(/step=review$/),
      notice.getByRole('link', { name: de.reviewAndSend }).click(),
    ]);
    expect(await again.locator('h1').textContent()).toBe(de.reviewTitle);
    expect(await mainText(again)).toContain('Ja, drei Stellplätze hinter dem Haus.');

    // Act: sent from the review while the pipe's enrichment fails for this host.
    const hold = await holdEnrichment(suiteAws(), {
      policyName: 'browser-test-on-its-way',
      partitions: [`OUTBOX#${hostId}`],
    });
    try {
      await continueFrom(again, 'review');

      // Assess: the page waited, then says the answers are on their way, and they are waiting.
      expect(await saysOnTheirWay(again)).toBe(true);
      expect(await mainText(again)).toContain(de.answersOnTheirWay(assistantDe?.name ?? ''));
      // What it will know once sent, with no promise of when: the pipe may be retrying for hours.
      expect(await mainText(again)).toContain(
        de.knowledgeOnItsWay(['die Check-in-Hinweise', '2 Antworten', '2 Angebote'], 'Haus Seeblick'),
      );
      expect(await mainText(again)).not.toContain(LIVE_DE);
      expect(await mainText(again)).not.toContain(de.unsentChanges);
      await lookAtClosingPage(again, 'on-its-way');
      const waiting = (await sentEvents('--host', String(hostId))).at(-1);
      expect(waiting).toMatchObject({ 'detail-type': 'KnowledgeBaseSubmitted', version: 3, sent_at: null });
    } finally {
      await hold.release();
    }

    // Assess: once the pipe takes it, a reload says the answers were sent.
    await untilAnswersSent(again);
    expect(await mainText(again)).toContain(LIVE_DE);
    const [last] = (
      await untilListed(
        () => sentEvents('--host', String(hostId)),
        (events) => events.at(-1)?.sent_at !== null,
        15_000,
        'the third submission is taken for delivery',
      )
    ).slice(-1);
    expect(last?.detail).toMatchObject({
      first_submission: false,
      version: 3,
      knowledge_base: { faqs: [{ answer: 'Ja, drei Stellplätze hinter dem Haus.' }, expect.anything()] },
    });
  });
});
