import type { Page } from 'playwright-core';
import type { ProductId } from '../../core/domain/catalog';
import type { Language } from '../../core/domain/languages';
import { LANGUAGES } from '../../core/domain/languages';
import { CATALOGUES, hostLocale } from '../../lambdas/pages/messages';
import type { AnyWizardStep, FormResult, WizardContext } from '../../lambdas/pages/wizard-step';
import type { WizardStepId } from '../../lambdas/pages/wizard-steps';
import { WIZARD_FINISH, WIZARD_STEPS, wizardStepsFor } from '../../lambdas/pages/wizard-steps';

/**
 * The onboarding wizard as the browser tests walk it. Which steps a host meets, and in which order,
 * is the step table's (`wizardStepsFor`); how a test answers each step is `STEP_FILLS`. No test
 * names the steps in order: a new step in `WIZARD_STEPS` needs one entry in `STEP_FILLS`, and every
 * walk meets it.
 */

/** How a test fills one step with valid answers. */
export type StepFill = (page: Page) => Promise<void>;

/**
 * One valid way through each step of the wizard, by step id. Typed by the table's ids, so `tsc`
 * refuses this table when a step of `WIZARD_STEPS` has no entry (and `walkWizard` names the step
 * if a run gets past the compiler). The answers are the same in every language, as a host may
 * type in any: what a language changes is the pages' own texts, which tests read from the
 * catalogues, so a new host language needs nothing here.
 */
export const STEP_FILLS: Record<WizardStepId, StepFill> = {
  details: async (page) => {
    await page.locator('#property_name').fill('Casa Verde by the Lake');
    await page
      .locator('#checkin_instructions')
      .fill('Check in from 3 pm.\nThe key box is left of the door, code 4711.');
  },
  faqs: async (page) => {
    await page.locator('#question-0').fill('Is there parking?');
    await page.locator('#answer-0').fill('Yes, two spaces behind the house.');
  },
  upsells: async (page) => {
    await page.locator('#title-0').fill('Breakfast');
    // A decimal comma, which every language's price field reads.
    await page.locator('#price-0').fill('12,50');
  },
  // Nothing to fill: Continue finishes.
  review: async () => {},
};

/** What a step's parser reads from a form: its value, or what to fix. */
type ParsedBy<Id extends WizardStepId> =
  ReturnType<Extract<(typeof WIZARD_STEPS)[number], { readonly id: Id }>['parse']> extends infer Input
    ? Input extends { ok: true; value: infer Value }
      ? FormResult<Value>
      : never
    : never;

/**
 * A step's parser as the onboarding page calls it, for unit tests: the posted form of the step
 * `id`, read in the pages' `language` (English unless given). Without what a refused form keeps as
 * typed, which is the page's to show.
 */
export function parseStep<Id extends WizardStepId>(
  id: Id,
  form: URLSearchParams,
  language: Language = 'en',
): ParsedBy<Id> {
  const step: AnyWizardStep | undefined = WIZARD_STEPS.find((candidate) => candidate.id === id);
  if (!step) throw new Error(`No wizard step "${id}"`);
  const locale = hostLocale(
    { headers: {}, multiValueQueryStringParameters: {}, queryStringParameters: { lang: language } },
    false,
  );
  const parsed = step.parse(form, { locale, steps: [] } as unknown as WizardContext);
  return (parsed.ok ? parsed : { ok: false, errors: parsed.errors }) as ParsedBy<Id>;
}

/** The step a wizard page shows (its form's hidden field), or `done` for the closing page. */
export async function stepOn(page: Page): Promise<string> {
  const field = page.locator('form input[name=step]');
  return (await field.count()) > 0 ? ((await field.getAttribute('value')) ?? '') : WIZARD_FINISH.id;
}

/** A page's main button (the marketplace's, Continue, or the review's finishing one), not Back or "Add another". */
export const continueButton = (page: Page) => page.locator('form button.primary');

/**
 * Continues from `step` and waits for the page it leads to. A refused form fails here, with the
 * page's error summary, rather than as a wrong next step.
 */
export async function continueFrom(page: Page, step: string): Promise<void> {
  const [response] = await Promise.all([
    page.waitForResponse((candidate) => candidate.request().method() === 'POST'),
    continueButton(page).click(),
  ]);
  const location = response.headers().location;
  if (response.status() !== 303 || !location) {
    await page.waitForLoadState();
    const summary = await page
      .locator('#form-errors')
      .innerText({ timeout: 1_000 })
      .catch(() => '');
    throw new Error(
      `Continue on the wizard step "${step}" answered ${response.status()}: ${summary || (await page.title())}`,
    );
  }
  const next = new URL(location, response.url()).toString();
  await page.waitForURL((url) => url.toString() === next);
}

export interface WalkOptions {
  /** This walk's own answers to some steps (a test about what one step keeps), instead of STEP_FILLS. */
  readonly fills?: Partial<Record<WizardStepId, StepFill>>;
  /** A host coming back to saved answers: continue from each step as shown, except where `fills` has one. */
  readonly keepSaved?: boolean;
  /** Runs on each page of the walk before the host acts on it: every step, then the closing page. */
  readonly look?: (step: WizardStepId | typeof WIZARD_FINISH.id) => Promise<void>;
  /** Runs after the host continued from a step, on the page that followed. */
  readonly left?: (step: WizardStepId) => Promise<void>;
  /** Stops when this step is shown, before it is looked at or filled (instead of at the closing page). */
  readonly to?: WizardStepId;
  /**
   * Leaves the closing page as it first shows, the answers perhaps still on their way, instead of
   * reloading it until they are sent (`untilAnswersSent`).
   */
  readonly asFirstShown?: boolean;
}

/**
 * Walks the wizard of a host with these products, from the step the page shows (usually the
 * first, where provisioning lands), filling each step and continuing, to the closing page (or
 * `options.to`). The steps are `wizardStepsFor(products)`, in its order: a page that shows
 * another step, or a step without a fill, fails the walk with a message naming the step. Returns
 * the steps filled, in order.
 */
export async function walkWizard(
  page: Page,
  products: readonly ProductId[],
  options: WalkOptions = {},
): Promise<WizardStepId[]> {
  const steps = wizardStepsFor(products).map((step) => step.id);
  const of = `the wizard of ${products.join(', ') || 'no product'} (${steps.join(' → ') || 'no step'})`;
  if (options.to && !steps.includes(options.to)) throw new Error(`${of} has no step "${options.to}"`);
  const first = await stepOn(page);
  const start = first === WIZARD_FINISH.id ? steps.length : (steps as readonly string[]).indexOf(first);
  if (start < 0) throw new Error(`The page shows the step "${first}", which is not in ${of}`);
  const walked: WizardStepId[] = [];
  for (const step of steps.slice(start)) {
    const shown = await stepOn(page);
    if (shown !== step)
      throw new Error(
        `After ${walked.at(-1) ?? 'the start'}, the page shows "${shown}" where ${of} has "${step}"`,
      );
    if (step === options.to) return walked;
    await options.look?.(step);
    const fill = options.fills?.[step] ?? (options.keepSaved ? undefined : STEP_FILLS[step]);
    if (!fill && !options.keepSaved)
      throw new Error(
        `No fill for the wizard step "${step}": add its entry to STEP_FILLS (test/support/wizard.ts)`,
      );
    await fill?.(page);
    await continueFrom(page, step);
    walked.push(step);
    await options.left?.(step);
  }
  const end = await stepOn(page);
  if (end !== WIZARD_FINISH.id)
    throw new Error(`After ${walked.at(-1) ?? 'the start'}, the page shows "${end}" where ${of} has ended`);
  if (!options.asFirstShown) await untilAnswersSent(page);
  await options.look?.(WIZARD_FINISH.id);
  return walked;
}

/**
 * Whether the closing page says the answers are on their way to the product (in the page's
 * language, whatever the product): the pipe has not yet taken the submission's event for delivery.
 */
export async function saysOnTheirWay(page: Page): Promise<boolean> {
  const lead = page.locator('main .notice.success .lead');
  if ((await lead.count()) === 0) return false;
  const lang = (await page.locator('html').getAttribute('lang')) ?? 'en';
  const messages = CATALOGUES[LANGUAGES.find((language) => language === lang) ?? 'en'];
  const [before = '', after = ''] = messages.answersOnTheirWay('\u0000').split('\u0000');
  const text = ((await lead.textContent()) ?? '').trim();
  return text.startsWith(before) && text.endsWith(after);
}

/**
 * On the closing page: reloads it until it no longer says the answers are on their way, at most
 * `timeoutMs`. Right after a submission it may say so: the outbound pipe takes the event about a
 * second after the commit, and the page waits at most 3 s for it. Every test that expects the
 * product's live message goes through here (`walkWizard` does, unless `asFirstShown`).
 */
export async function untilAnswersSent(page: Page, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (await saysOnTheirWay(page)) {
    if (Date.now() > deadline)
      throw new Error(
        `The closing page still says the answers are on their way after ${timeoutMs / 1000} s: ${await page.locator('main').innerText()}`,
      );
    await page.reload();
  }
}
