import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { VNode } from 'preact';
import type { Product } from '../domain/catalog';
import type { ActivationStage } from './activation-layout';
import { ActivationLayout } from './activation-layout';
import { openSession, productCatalog, provisionedProperty } from './activation-lookups';
import { csrfToken, isValidCsrfToken } from './host-session';
import type { PageResponse } from './html';
import { htmlPage } from './html';
import { pageHandler } from './page-handler';
import { formExpiredPage, seeOther } from './page-responses';
import { postedForm } from './posted-form';
import type { AnyWizardStep, WizardContext } from './wizard-steps';
import { WIZARD_FINISH, WIZARD_STEPS } from './wizard-steps';

/** Where a wizard page is, relative to the current page like every redirect of these pages. */
const addressOf = (page: { readonly id: string }) => `onboarding?step=${page.id}`;
const stepNamed = (id: string | null | undefined) => WIZARD_STEPS.find((step) => step.id === id);

function Errors(props: { errors: readonly string[] }) {
  if (props.errors.length === 0) return null;
  return (
    <div class="notice error" role="alert" id="form-errors">
      <p>Please check:</p>
      <ul>
        {props.errors.map((error) => (
          <li>{error}</li>
        ))}
      </ul>
    </div>
  );
}

/** A wizard page: its title, where it is in the flow (and in the wizard, for a step), its errors. */
async function wizardPage(
  context: WizardContext,
  shown: { title: string; stage: ActivationStage; number?: number },
  body: (catalog: readonly Product[]) => VNode,
  errors: readonly string[] = [],
): Promise<PageResponse> {
  const catalog = await productCatalog();
  return htmlPage(errors.length > 0 ? 400 : 200, (nonce) => (
    <ActivationLayout
      title={shown.title}
      nonce={nonce}
      partnerName={context.partner.name}
      stage={shown.stage}
    >
      <h1>{shown.title}</h1>
      {shown.number !== undefined ? (
        <p class="muted">
          Step {shown.number} of {WIZARD_STEPS.length}. Each step is saved when you continue.
        </p>
      ) : null}
      <Errors errors={errors} />
      {body(catalog)}
    </ActivationLayout>
  ));
}

/** A step's page: from what is stored, or as typed with the errors of its refused form. */
function stepPage(
  step: AnyWizardStep,
  context: WizardContext,
  refused?: { errors: readonly string[]; typed?: unknown },
): Promise<PageResponse> {
  const errors = refused?.errors ?? [];
  return wizardPage(
    context,
    { title: step.title, stage: 'setup', number: WIZARD_STEPS.indexOf(step) + 1 },
    (catalog) => step.render({ id: step.id, context, errors, catalog }, refused?.typed),
    errors,
  );
}

async function saveStep(
  event: APIGatewayProxyEvent,
  context: WizardContext,
  key: Buffer,
): Promise<APIGatewayProxyResult> {
  const posted = postedForm(event);
  if (!posted.ok) return posted.page;
  const { form } = posted;
  if (!isValidCsrfToken(context.session, key, form.get('csrf'))) return formExpiredPage();
  const step = stepNamed(form.get('step'));
  if (!step) return seeOther('onboarding');
  const parsed = step.parse(form, context);
  if (!parsed.ok) return stepPage(step, context, parsed);
  await step.save(parsed.value, context, new Date().toISOString());
  return seeOther(addressOf(WIZARD_STEPS[WIZARD_STEPS.indexOf(step) + 1] ?? WIZARD_FINISH));
}

/**
 * `/partner/{slug}/onboarding`: the knowledge-base wizard after provisioning (its steps are the
 * table in `wizard-steps.tsx`). GET `?step=` shows a step from what is stored (a reload loses
 * nothing); POST saves it and moves on.
 */
export const handler = pageHandler(async (event: APIGatewayProxyEvent) => {
  const opened = await openSession(event);
  if ('page' in opened) return opened.page;
  const { partner, session, key } = opened;
  const { provisioned } = session;
  if (!provisioned) return seeOther('marketplace');
  const { property, knowledgeBase, products } = await provisionedProperty(partner.id, provisioned.propertyId);
  const context: WizardContext = {
    partner,
    session: { ...session, provisioned },
    csrf: csrfToken(session, key),
    propertyName: property?.name ?? session.claims.contact_name,
    knowledgeBase,
    products,
    ...(event.requestContext?.requestId ? { requestId: event.requestContext.requestId } : {}),
  };
  if (event.httpMethod === 'POST') return saveStep(event, context, key);
  const requested = event.queryStringParameters?.step;
  if (requested === WIZARD_FINISH.id) {
    // Not finished yet: the last step is the one that finishes.
    if (!WIZARD_FINISH.reached(context)) return seeOther(addressOf(WIZARD_STEPS.at(-1) ?? WIZARD_STEPS[0]));
    return wizardPage(context, { title: WIZARD_FINISH.title, stage: 'live' }, (catalog) =>
      WIZARD_FINISH.render(context, catalog),
    );
  }
  return stepPage(stepNamed(requested) ?? WIZARD_STEPS[0], context);
});
