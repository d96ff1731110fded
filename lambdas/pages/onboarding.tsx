import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import type { ComponentChildren } from 'preact';
import type { KnowledgeBase } from '../data/knowledge-base';
import { getKnowledgeBase, saveKnowledgeBase } from '../data/knowledge-base';
import type { Partner } from '../data/partners';
import { getPropertyOfPartner, updateProperty } from '../data/properties';
import { listActiveProductsOfProperty } from '../data/seats';
import type { ProductId } from '../domain/catalog';
import {
  ActivationLayout,
  formExpiredPage,
  openSession,
  postedForm,
  productCatalog,
  seeOther,
} from './activation-context';
import type { HostSession } from './host-session';
import { csrfToken, isValidCsrfToken } from './host-session';
import type { PageResponse } from './html';
import { htmlPage } from './html';
import {
  CURRENCIES,
  FIELD_MAX_LENGTH,
  formatPrice,
  MAX_FAQS,
  MAX_UPSELLS,
  parseDetails,
  parseFaqs,
  parseUpsells,
} from './onboarding-forms';
import { pageHandler } from './page-handler';

const STEPS = ['details', 'faqs', 'upsells', 'review'] as const;
type Step = (typeof STEPS)[number] | 'done';
const STEP_TITLES: Record<Step, string> = {
  details: 'Your property and check-in',
  faqs: 'Questions guests ask',
  upsells: 'Offers for your guests',
  review: 'Review and go live',
  done: 'You are live',
};

interface Drafts {
  propertyName: string;
  checkInInstructions: string;
  faqs: { question: string; answer: string }[];
  upsells: { title: string; description: string; price: string; currency: string }[];
}

interface WizardContext {
  readonly partner: Partner;
  readonly session: HostSession & { provisioned: { hostUserId: number; propertyId: number } };
  readonly csrf: string;
  readonly knowledgeBase: KnowledgeBase;
  readonly products: readonly ProductId[];
}

function draftsFrom(propertyName: string, knowledgeBase: KnowledgeBase): Drafts {
  return {
    propertyName,
    checkInInstructions: knowledgeBase.checkInInstructions,
    faqs: knowledgeBase.faqs.map((faq) => ({ ...faq })),
    upsells: knowledgeBase.upsells.map((offer) => ({
      title: offer.title,
      description: offer.description,
      price: (offer.priceMinor / 100).toFixed(2),
      currency: offer.currency,
    })),
  };
}

function withBlankRows<T>(rows: readonly T[], blank: T, max: number): T[] {
  return [...rows, blank, blank].slice(0, Math.max(max, rows.length));
}

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

function StepForm(props: {
  step: Step;
  csrf: string;
  children: ComponentChildren;
  submit: string;
  errors: readonly string[];
}) {
  return (
    <form
      method="post"
      action="onboarding"
      novalidate
      aria-describedby={props.errors.length > 0 ? 'form-errors' : undefined}
    >
      <input type="hidden" name="csrf" value={props.csrf} />
      <input type="hidden" name="step" value={props.step} />
      {props.children}
      <button type="submit">{props.submit}</button>
    </form>
  );
}

function stepBody(
  step: Step,
  context: WizardContext,
  drafts: Drafts,
  errors: readonly string[],
  catalogNames: Map<string, string>,
) {
  const { csrf } = context;
  const assistantActive = context.products.includes('assistant');
  switch (step) {
    case 'details':
      return (
        <StepForm step={step} csrf={csrf} submit="Save and continue" errors={errors}>
          <label for="property_name">Property name</label>
          <input
            type="text"
            id="property_name"
            name="property_name"
            value={drafts.propertyName}
            maxlength={FIELD_MAX_LENGTH.property_name}
            required
            autocomplete="organization"
          />
          <label for="checkin_instructions">Check-in instructions</label>
          <p class="muted" id="checkin-help">
            What guests need on arrival: time, address details, keys or codes, parking.
          </p>
          <textarea
            id="checkin_instructions"
            name="checkin_instructions"
            aria-describedby="checkin-help"
            maxlength={FIELD_MAX_LENGTH.checkin_instructions}
            required
          >
            {drafts.checkInInstructions}
          </textarea>
        </StepForm>
      );
    case 'faqs':
      return (
        <StepForm step={step} csrf={csrf} submit="Save and continue" errors={errors}>
          <p>
            Add the questions guests ask most, with your answers. Empty rows are ignored; save to get more
            rows.
          </p>
          {withBlankRows(drafts.faqs, { question: '', answer: '' }, MAX_FAQS).map((faq, index) => (
            <fieldset>
              <legend>Question {index + 1}</legend>
              <label for={`question-${index}`}>Question</label>
              <input
                type="text"
                id={`question-${index}`}
                name="question"
                value={faq.question}
                maxlength={FIELD_MAX_LENGTH.question}
              />
              <label for={`answer-${index}`}>Answer</label>
              <textarea id={`answer-${index}`} name="answer" maxlength={FIELD_MAX_LENGTH.answer}>
                {faq.answer}
              </textarea>
            </fieldset>
          ))}
        </StepForm>
      );
    case 'upsells':
      return (
        <StepForm step={step} csrf={csrf} submit="Save and continue" errors={errors}>
          <p>
            Offers your assistant can suggest to guests, such as early check-in or airport pick-up. You can
            leave this empty.
          </p>
          {withBlankRows(
            drafts.upsells,
            { title: '', description: '', price: '', currency: 'EUR' },
            MAX_UPSELLS,
          ).map((offer, index) => (
            <fieldset>
              <legend>Offer {index + 1}</legend>
              <label for={`title-${index}`}>Title</label>
              <input
                type="text"
                id={`title-${index}`}
                name="title"
                value={offer.title}
                maxlength={FIELD_MAX_LENGTH.title}
              />
              <label for={`description-${index}`}>Description</label>
              <textarea
                id={`description-${index}`}
                name="description"
                maxlength={FIELD_MAX_LENGTH.description}
              >
                {offer.description}
              </textarea>
              <label for={`price-${index}`}>Guest price</label>
              <input
                type="text"
                inputmode="decimal"
                id={`price-${index}`}
                name="price"
                value={offer.price}
                placeholder="25.00"
              />
              <label for={`currency-${index}`}>Currency</label>
              <select id={`currency-${index}`} name="currency">
                {CURRENCIES.map((currency) => (
                  <option value={currency} selected={currency === offer.currency}>
                    {currency}
                  </option>
                ))}
              </select>
            </fieldset>
          ))}
        </StepForm>
      );
    case 'review':
      return (
        <>
          <h2>{drafts.propertyName}</h2>
          <p>Active products: {context.products.map((id) => catalogNames.get(id) ?? id).join(', ')}</p>
          <h3>Check-in</h3>
          <p>{drafts.checkInInstructions || <em>Not filled in yet (step 1).</em>}</p>
          <h3>Questions ({drafts.faqs.length})</h3>
          <ul>
            {drafts.faqs.map((faq) => (
              <li>
                <strong>{faq.question}</strong> {faq.answer}
              </li>
            ))}
          </ul>
          <h3>Offers ({context.knowledgeBase.upsells.length})</h3>
          <ul>
            {context.knowledgeBase.upsells.map((offer) => (
              <li>
                <strong>{offer.title}</strong>, {formatPrice(offer)}: {offer.description}
              </li>
            ))}
          </ul>
          <StepForm
            step={step}
            csrf={csrf}
            submit={assistantActive ? 'Make my assistant live' : 'Finish setup'}
            errors={errors}
          >
            <p>You can change these answers later; your assistant uses the latest ones.</p>
          </StepForm>
        </>
      );
    default:
      return (
        <div class="notice success" role="status">
          <p class="lead">
            <strong>
              {assistantActive ? 'Your assistant now answers guests.' : 'Your setup is complete.'}
            </strong>
          </p>
          <p>
            {assistantActive
              ? `It knows the check-in instructions, ${drafts.faqs.length} answers and ${context.knowledgeBase.upsells.length} offers for ${drafts.propertyName}.`
              : `The products you chose are active for ${drafts.propertyName}.`}{' '}
            You can close this tab and return to {context.partner.name}.
          </p>
        </div>
      );
  }
}

async function wizardPage(
  step: Step,
  context: WizardContext,
  drafts: Drafts,
  errors: readonly string[] = [],
): Promise<PageResponse> {
  const catalogNames = new Map((await productCatalog()).map((product) => [product.id, product.name]));
  const index = STEPS.indexOf(step as (typeof STEPS)[number]);
  return htmlPage(errors.length > 0 ? 400 : 200, (nonce) => (
    <ActivationLayout
      title={STEP_TITLES[step]}
      nonce={nonce}
      partnerName={context.partner.name}
      step={step === 'done' ? 2 : 1}
    >
      <h1>{STEP_TITLES[step]}</h1>
      {index >= 0 ? (
        <p class="muted">
          Step {index + 1} of {STEPS.length}. Each step is saved when you continue.
        </p>
      ) : null}
      <Errors errors={errors} />
      {stepBody(step, context, drafts, errors, catalogNames)}
    </ActivationLayout>
  ));
}

async function saveStep(
  event: APIGatewayProxyEvent,
  context: WizardContext,
  key: Buffer,
  propertyName: string,
): Promise<APIGatewayProxyResult> {
  const posted = postedForm(event);
  if (!posted.ok) return posted.page;
  const { form } = posted;
  if (!isValidCsrfToken(context.session, key, form.get('csrf'))) return formExpiredPage();
  const step = form.get('step') as Step;
  const { partnerId } = context.session;
  const { propertyId } = context.session.provisioned;
  const nowIso = new Date().toISOString();
  const drafts = draftsFrom(propertyName, context.knowledgeBase);
  switch (step) {
    case 'details': {
      const parsed = parseDetails(form);
      if (!parsed.ok)
        return wizardPage(
          step,
          context,
          {
            ...drafts,
            propertyName: form.get('property_name') ?? '',
            checkInInstructions: form.get('checkin_instructions') ?? '',
          },
          parsed.errors,
        );
      await updateProperty(partnerId, propertyId, { name: parsed.value.propertyName });
      await saveKnowledgeBase(propertyId, { checkInInstructions: parsed.value.checkInInstructions }, nowIso);
      return seeOther('onboarding?step=faqs');
    }
    case 'faqs': {
      const parsed = parseFaqs(form);
      const answers = form.getAll('answer');
      if (!parsed.ok)
        return wizardPage(
          step,
          context,
          {
            ...drafts,
            faqs: form.getAll('question').map((question, i) => ({ question, answer: answers[i] ?? '' })),
          },
          parsed.errors,
        );
      await saveKnowledgeBase(propertyId, { faqs: parsed.value }, nowIso);
      return seeOther('onboarding?step=upsells');
    }
    case 'upsells': {
      const parsed = parseUpsells(form);
      if (!parsed.ok) {
        const [descriptions, prices, currencies] = [
          form.getAll('description'),
          form.getAll('price'),
          form.getAll('currency'),
        ];
        const upsells = form.getAll('title').map((title, i) => ({
          title,
          description: descriptions[i] ?? '',
          price: prices[i] ?? '',
          currency: currencies[i] ?? 'EUR',
        }));
        return wizardPage(step, context, { ...drafts, upsells }, parsed.errors);
      }
      await saveKnowledgeBase(propertyId, { upsells: parsed.value }, nowIso);
      return seeOther('onboarding?step=review');
    }
    case 'review': {
      const missing = [
        ...(context.knowledgeBase.checkInInstructions ? [] : ['Check-in instructions are missing (step 1).']),
        ...(context.knowledgeBase.faqs.length > 0 ? [] : ['Add at least one question and answer (step 2).']),
      ];
      if (missing.length > 0) return wizardPage('review', context, drafts, missing);
      await saveKnowledgeBase(
        propertyId,
        { assistantLiveAt: context.knowledgeBase.assistantLiveAt ?? nowIso },
        nowIso,
      );
      return seeOther('onboarding?step=done');
    }
    default:
      return seeOther('onboarding');
  }
}

/**
 * `/partner/{slug}/onboarding`: the knowledge-base wizard after provisioning. GET `?step=`
 * shows a step from what is stored (a reload loses nothing); POST saves it and moves on.
 */
export const handler = pageHandler(async (event: APIGatewayProxyEvent) => {
  const opened = await openSession(event);
  if ('page' in opened) return opened.page;
  const { partner, session, key } = opened;
  const { provisioned } = session;
  if (!provisioned) return seeOther('marketplace');
  const [property, knowledgeBase, products] = await Promise.all([
    getPropertyOfPartner(partner.id, provisioned.propertyId),
    getKnowledgeBase(provisioned.propertyId),
    listActiveProductsOfProperty(partner.id, provisioned.propertyId),
  ]);
  const context: WizardContext = {
    partner,
    session: { ...session, provisioned },
    csrf: csrfToken(session, key),
    knowledgeBase,
    products,
  };
  const propertyName = property?.name ?? session.claims.contact_name;
  if (event.httpMethod === 'POST') return saveStep(event, context, key, propertyName);
  const requested = event.queryStringParameters?.step as Step | undefined;
  const step: Step =
    requested && (STEPS.includes(requested as (typeof STEPS)[number]) || requested === 'done')
      ? requested
      : 'details';
  if (step === 'done' && !knowledgeBase.assistantLiveAt) return seeOther('onboarding?step=review');
  return wizardPage(step, context, draftsFrom(propertyName, knowledgeBase));
});
