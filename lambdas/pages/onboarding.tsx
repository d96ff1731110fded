import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { VNode } from 'preact';
import { productGoingLive } from '../../core/domain/catalog';
import { PropertyNotSponsoredError } from '../data/knowledge-base';
import { sentAtOf } from '../data/outbox';
import { ActivationLayout } from './activation-layout';
import { openSession, productCatalog, provisionedProperty } from './activation-lookups';
import { ErrorSummary } from './error-summary';
import { csrfToken, isValidCsrfToken } from './host-session';
import type { PageResponse } from './html';
import { htmlPage } from './html';
import { hostPageHandler } from './page-handler';
import { formExpiredPage, RESUME_ADDRESS, seeOther, setupEndedPage } from './page-responses';
import { postedForm } from './posted-form';
import type { AnyWizardStep, FormError, WizardContext } from './wizard-step';
import { ADD_ROW, BACK } from './wizard-step';
import { MAX_ROWS, WIZARD_FINISH, WIZARD_FORM, wizardStepsFor } from './wizard-steps';

/** Where a wizard page is, relative to the current page like every redirect of these pages. */
const addressOf = (page: { readonly id: string }) => `onboarding?step=${page.id}`;

/**
 * A wizard page: its title, its place in the one progress indicator (products, the host's steps,
 * done), its errors.
 */
function wizardPage(
  context: WizardContext,
  shown: { title: string; stage: number; step?: boolean },
  body: VNode,
  errors: readonly FormError[] = [],
): PageResponse {
  const { locale } = context;
  const m = locale.messages;
  const stages = [m.stageProducts, ...context.steps.map((step) => step.stage(m)), m.stageDone];
  return htmlPage(errors.length > 0 ? 400 : 200, (nonce) => (
    <ActivationLayout
      title={shown.title}
      nonce={nonce}
      locale={locale}
      partner={context.face}
      progress={{ stages, current: shown.stage }}
    >
      <h1>{shown.title}</h1>
      {shown.step ? <p class="muted">{m.savedOnContinue}</p> : null}
      <ErrorSummary errors={errors} locale={locale} />
      {body}
    </ActivationLayout>
  ));
}

/** A step's page: from what is stored, or as typed with the errors of its refused form. */
function stepPage(
  step: AnyWizardStep,
  context: WizardContext,
  refused?: { errors: readonly FormError[]; typed?: unknown },
  rows?: number,
): PageResponse {
  const errors = refused?.errors ?? [];
  return wizardPage(
    context,
    {
      title: step.title(context.locale.messages),
      stage: context.steps.indexOf(step) + 1,
      // The saving hint on the steps that have fields; the review has none to save.
      step: step.products !== undefined,
    },
    step.render({ id: step.id, context, errors, ...(rows === undefined ? {} : { rows }) }, refused?.typed),
    errors,
  );
}

/**
 * Where a host who opens the wizard again carries on: the first step they never saved (Continue,
 * Back and "Add another" all save what was typed), or the review once every step was saved.
 */
function resumeStep(context: WizardContext): AnyWizardStep {
  const { answers } = context.knowledgeBase;
  const unsaved = context.steps.find(
    (step) => step.attribute !== undefined && answers[step.attribute] === undefined,
  );
  return unsaved ?? context.steps.at(-1) ?? (context.steps[0] as AnyWizardStep);
}

/** Nothing typed in the form's fields (a step left empty): Back then just goes back. */
const NOT_TYPED = new Set(['csrf', 'step', 'go', 'currency']);
const nothingTyped = (form: URLSearchParams) =>
  [...form.entries()].every(([name, value]) => NOT_TYPED.has(name) || value.trim() === '');

/**
 * A posted step. Continue saves it and goes to the next step; Back saves what was typed and goes
 * to the previous one, so nothing typed is lost either way; "Add another" saves it and shows it
 * again with one more row. A form that cannot be saved as typed is shown again, as typed, with
 * what to fix; Back on a form left empty goes back without saving.
 */
async function saveStep(
  event: APIGatewayProxyEvent,
  context: WizardContext,
  key: Buffer,
): Promise<APIGatewayProxyResult> {
  const posted = postedForm(event, context.locale, context.face, WIZARD_FORM);
  if (!posted.ok) return posted.page;
  const { form } = posted;
  if (!isValidCsrfToken(context.session, key, form.get('csrf')))
    return formExpiredPage(context.locale, context.face);
  const { steps } = context;
  const step = steps.find((candidate) => candidate.id === form.get('step'));
  if (!step) return seeOther('onboarding');
  const index = steps.indexOf(step);
  const back = form.get('go') === BACK && index > 0;
  const previous = steps[index - 1] ?? step;
  const local = { ...context, locale: context.locale.keeping({ step: step.id }) };
  if (back && (step.id === 'review' || nothingTyped(form))) return seeOther(addressOf(previous));
  const parsed = step.parse(form, local);
  if (!parsed.ok) return stepPage(step, local, parsed);
  try {
    await step.save(parsed.value, local, new Date().toISOString());
  } catch (error) {
    // The sponsorship ended, or the host was erased, since the page was shown: nothing was saved.
    if (error instanceof PropertyNotSponsoredError) return setupEndedPage(context.locale, context.face);
    throw error;
  }
  if (form.get('go') === ADD_ROW && step.rows) {
    const rows = Math.min(step.rows.max, form.getAll(step.rows.field).length + 1);
    return seeOther(`${addressOf(step)}&rows=${rows}`);
  }
  return seeOther(addressOf(back ? previous : (steps[index + 1] ?? WIZARD_FINISH)));
}

/** How long the closing page waits for a submission made a moment ago to be taken for delivery. */
const SENDING_WAIT_MS = 3_000;
const SENDING_POLL_MS = 250;
/** A submission older than this is not waited for: what the outbox says is what the page says. */
const JUST_SUBMITTED_MS = 30_000;

/**
 * Whether the last submission's event was taken for delivery to the platform. Right after the host
 * submitted, the pipe usually takes it within a second or two: the page waits up to 3 s for it, so
 * that it can say the answers were sent rather than that they are on their way.
 */
async function submissionSent(context: WizardContext): Promise<boolean> {
  const { submittedEvent, submittedAt } = context.knowledgeBase;
  if (submittedEvent === undefined) return true; // submitted before the events existed, or no wizard
  // Only a product that goes live says when the answers were sent: without one, nothing to wait for.
  if (!productGoingLive(context.catalog, context.products)) return true;
  const { hostUserId } = context.session.provisioned;
  const waitUntil =
    submittedAt !== undefined && Date.now() - Date.parse(submittedAt) < JUST_SUBMITTED_MS
      ? Date.now() + SENDING_WAIT_MS
      : 0;
  for (;;) {
    if ((await sentAtOf(hostUserId, submittedEvent)) !== undefined) return true;
    if (Date.now() >= waitUntil) return false;
    await new Promise((resolve) => setTimeout(resolve, SENDING_POLL_MS));
  }
}

/** The rows a step's address asks for (`rows=`, after "Add another"), if it names a sensible number. */
function requestedRows(event: APIGatewayProxyEvent): number | undefined {
  const rows = Number(event.queryStringParameters?.rows);
  return Number.isSafeInteger(rows) && rows >= 1 && rows <= MAX_ROWS ? rows : undefined;
}

/**
 * `/partner/{slug}/onboarding`: the knowledge-base wizard after provisioning, with the steps of
 * the products the host activated (`wizard-steps.tsx`). GET `?step=` shows a step from what is
 * stored (a reload loses nothing); POST saves it and moves on or back.
 */
export const handler = hostPageHandler(async (event: APIGatewayProxyEvent, locale) => {
  const opened = await openSession(event, locale);
  if ('page' in opened) return opened.page;
  const { partner, face, session, key } = opened;
  const { provisioned } = session;
  if (!provisioned) return seeOther('marketplace');
  const [{ property, knowledgeBase, products }] = await Promise.all([
    provisionedProperty(partner.id, provisioned.propertyId),
    productCatalog(),
  ]);
  // Read in parallel above; read again only when a product is newer than what the instance cached.
  const catalog = await productCatalog(products);
  // The partner no longer sponsors the property: its sponsorship ended, or its host was erased.
  if (!property) return setupEndedPage(locale, face);
  const context: WizardContext = {
    partner,
    face,
    locale,
    session: { ...session, provisioned },
    csrf: csrfToken(session, key),
    propertyName: property.name,
    knowledgeBase,
    products,
    catalog,
    steps: wizardStepsFor(products),
    ...(event.requestContext?.requestId ? { requestId: event.requestContext.requestId } : {}),
  };
  if (event.httpMethod === 'POST') return saveStep(event, context, key);
  const requested = event.queryStringParameters?.step;
  const finish = async () =>
    wizardPage(
      context,
      { title: WIZARD_FINISH.title(locale.messages), stage: context.steps.length + 1 },
      WIZARD_FINISH.render(context, await submissionSent(context)),
    );
  // With no product that needs a step, `last` is undefined: straight to the confirmation.
  const last = context.steps.at(-1);
  if (requested === WIZARD_FINISH.id || !last) {
    // Not finished yet: the last step is the one that finishes.
    if (last && !WIZARD_FINISH.reached(context)) return seeOther(addressOf(last));
    return finish();
  }
  // The host's link opened again in their session: the Done page once finished, else where they left.
  if (`onboarding?step=${requested}` === RESUME_ADDRESS)
    return seeOther(addressOf(WIZARD_FINISH.reached(context) ? WIZARD_FINISH : resumeStep(context)));
  const first = context.steps[0] ?? last;
  return stepPage(
    context.steps.find((candidate) => candidate.id === requested) ?? first,
    context,
    undefined,
    requestedRows(event),
  );
});
