import type { ComponentChildren, VNode } from 'preact';
import { HOST_ACTOR } from '../data/audit';
import type { KnowledgeBase } from '../data/knowledge-base';
import { markLive, saveKnowledgeBase } from '../data/knowledge-base';
import type { Partner } from '../data/partners';
import { updateProperty } from '../data/properties';
import type { Product, ProductId } from '../domain/catalog';
import { productGoingLive } from '../domain/catalog';
import type { HostSession } from './host-session';
import type { FormResult } from './onboarding-forms';
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

/** What every step of the onboarding wizard works on: the host's provisioned property. */
export interface WizardContext {
  readonly partner: Partner;
  readonly session: HostSession & { provisioned: { hostUserId: number; propertyId: number } };
  readonly csrf: string;
  /** The stored property name, or the contact's name until the host names the property. */
  readonly propertyName: string;
  readonly knowledgeBase: KnowledgeBase;
  readonly products: readonly ProductId[];
  /** API Gateway's id of this page request (audit events name it). */
  readonly requestId?: string;
}

/** What a step's page is drawn with. */
export interface StepPage {
  readonly id: string;
  readonly context: WizardContext;
  /** Why the posted form was refused (none on a page shown from what is stored). */
  readonly errors: readonly string[];
  /** The product catalog: names of the products the host chose, and which goes live. */
  readonly catalog: readonly Product[];
}

/** A refused form keeps what the host typed (`typed`), so the step shows it again with the errors. */
export type StepInput<Typed, Value> =
  | { ok: true; value: Value }
  | { ok: false; errors: string[]; typed?: Typed };

/**
 * One step of the wizard. `Typed` is what its form shows again when refused, `Value` what it saves.
 * (Methods, not function properties, so steps of different types share the table's one type.)
 */
export interface WizardStep<Typed, Value> {
  /** The step's name in the address (`onboarding?step=…`) and in its form. */
  readonly id: string;
  readonly title: string;
  /** Reads the step's posted form (the parsers of `onboarding-forms.ts`). */
  parse(form: URLSearchParams, context: WizardContext): StepInput<Typed, Value>;
  /** The step's page below its heading: from what is stored, or from `typed` when its form was refused. */
  render(page: StepPage, typed?: Typed): VNode;
  /** Writes what `parse` read. */
  save(value: Value, context: WizardContext, nowIso: string): Promise<void>;
  /** What the review page shows of this step; `number` is the step's place in the wizard (1 = first). */
  readonly review?: {
    summary(context: WizardContext, number: number): VNode;
    /** What is missing before the host can finish, if anything. */
    missing?(context: WizardContext, number: number): string | undefined;
  };
}

export type AnyWizardStep = WizardStep<unknown, unknown>;

/** Keeps a step's own types while it is written, and gives it the table's type. */
function wizardStep<Typed, Value>(step: WizardStep<Typed, Value>): AnyWizardStep {
  return step;
}

function StepForm(props: { page: StepPage; submit: string; children: ComponentChildren }) {
  const { page } = props;
  return (
    <form
      method="post"
      action="onboarding"
      novalidate
      aria-describedby={page.errors.length > 0 ? 'form-errors' : undefined}
    >
      <input type="hidden" name="csrf" value={page.context.csrf} />
      <input type="hidden" name="step" value={page.id} />
      {props.children}
      <button type="submit">{props.submit}</button>
    </form>
  );
}

function withBlankRows<T>(rows: readonly T[], blank: T, max: number): T[] {
  return [...rows, blank, blank].slice(0, Math.max(max, rows.length));
}

const withTyped = <Typed, Value>(parsed: FormResult<Value>, typed: () => Typed): StepInput<Typed, Value> =>
  parsed.ok ? parsed : { ...parsed, typed: typed() };

/**
 * The onboarding wizard, in order. Everything else follows from this table: the pages' order and
 * numbering ("Step 2 of 4"), where each step's form goes next, what the review page lists and
 * which step it names when something is missing. Adding a step = one entry here (+ its form
 * parser in `onboarding-forms.ts`).
 */
export const WIZARD_STEPS: readonly [AnyWizardStep, ...AnyWizardStep[]] = [
  wizardStep({
    id: 'details',
    title: 'Your property and check-in',
    parse: (form) =>
      withTyped(parseDetails(form), () => ({
        propertyName: form.get('property_name') ?? '',
        checkInInstructions: form.get('checkin_instructions') ?? '',
      })),
    render: (page, typed) => {
      const values = typed ?? {
        propertyName: page.context.propertyName,
        checkInInstructions: page.context.knowledgeBase.checkInInstructions,
      };
      return (
        <StepForm page={page} submit="Save and continue">
          <label for="property_name">Property name</label>
          <input
            type="text"
            id="property_name"
            name="property_name"
            value={values.propertyName}
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
            {values.checkInInstructions}
          </textarea>
        </StepForm>
      );
    },
    save: async (value, context, nowIso) => {
      const { propertyId } = context.session.provisioned;
      await updateProperty(context.session.partnerId, propertyId, { name: value.propertyName });
      await saveKnowledgeBase(propertyId, { checkInInstructions: value.checkInInstructions }, nowIso);
    },
    review: {
      summary: (context, number) => (
        <>
          <h3>Check-in</h3>
          <p>{context.knowledgeBase.checkInInstructions || <em>Not filled in yet (step {number}).</em>}</p>
        </>
      ),
      missing: (context, number) =>
        context.knowledgeBase.checkInInstructions
          ? undefined
          : `Check-in instructions are missing (step ${number}).`,
    },
  }),
  wizardStep({
    id: 'faqs',
    title: 'Questions guests ask',
    parse: (form) =>
      withTyped(parseFaqs(form), () => {
        const answers = form.getAll('answer');
        return form.getAll('question').map((question, i) => ({ question, answer: answers[i] ?? '' }));
      }),
    render: (page, typed) => {
      const faqs = typed ?? page.context.knowledgeBase.faqs;
      return (
        <StepForm page={page} submit="Save and continue">
          <p>
            Add the questions guests ask most, with your answers. Empty rows are ignored; save to get more
            rows.
          </p>
          {withBlankRows(faqs, { question: '', answer: '' }, MAX_FAQS).map((faq, index) => (
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
    },
    save: async (faqs, context, nowIso) => {
      await saveKnowledgeBase(context.session.provisioned.propertyId, { faqs }, nowIso);
    },
    review: {
      summary: (context) => (
        <>
          <h3>Questions ({context.knowledgeBase.faqs.length})</h3>
          <ul>
            {context.knowledgeBase.faqs.map((faq) => (
              <li>
                <strong>{faq.question}</strong> {faq.answer}
              </li>
            ))}
          </ul>
        </>
      ),
      missing: (context, number) =>
        context.knowledgeBase.faqs.length > 0
          ? undefined
          : `Add at least one question and answer (step ${number}).`,
    },
  }),
  wizardStep({
    id: 'upsells',
    title: 'Offers for your guests',
    parse: (form) =>
      withTyped(parseUpsells(form), () => {
        const [descriptions, prices, currencies] = [
          form.getAll('description'),
          form.getAll('price'),
          form.getAll('currency'),
        ];
        return form.getAll('title').map((title, i) => ({
          title,
          description: descriptions[i] ?? '',
          price: prices[i] ?? '',
          currency: currencies[i] ?? 'EUR',
        }));
      }),
    render: (page, typed) => {
      const offers =
        typed ??
        page.context.knowledgeBase.upsells.map((offer) => ({
          title: offer.title,
          description: offer.description,
          price: (offer.priceMinor / 100).toFixed(2),
          currency: offer.currency,
        }));
      return (
        <StepForm page={page} submit="Save and continue">
          <p>
            Offers your assistant can suggest to guests, such as early check-in or airport pick-up. You can
            leave this empty.
          </p>
          {withBlankRows(offers, { title: '', description: '', price: '', currency: 'EUR' }, MAX_UPSELLS).map(
            (offer, index) => (
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
            ),
          )}
        </StepForm>
      );
    },
    save: async (upsells, context, nowIso) => {
      await saveKnowledgeBase(context.session.provisioned.propertyId, { upsells }, nowIso);
    },
    review: {
      summary: (context) => (
        <>
          <h3>Offers ({context.knowledgeBase.upsells.length})</h3>
          <ul>
            {context.knowledgeBase.upsells.map((offer) => (
              <li>
                <strong>{offer.title}</strong>, {formatPrice(offer)}: {offer.description}
              </li>
            ))}
          </ul>
        </>
      ),
    },
  }),
  wizardStep<never, undefined>({
    id: 'review',
    title: 'Review and go live',
    parse: (_form, context) => {
      const missing = WIZARD_STEPS.flatMap((step, index) => step.review?.missing?.(context, index + 1) ?? []);
      return missing.length > 0 ? { ok: false, errors: missing } : { ok: true, value: undefined };
    },
    render: (page) => (
      <>
        <h2>{page.context.propertyName}</h2>
        <p>
          Active products:{' '}
          {page.context.products
            .map((id) => page.catalog.find((product) => product.id === id)?.name ?? id)
            .join(', ')}
        </p>
        {WIZARD_STEPS.map((step, index) => step.review?.summary(page.context, index + 1))}
        <StepForm
          page={page}
          submit={
            productGoingLive(page.catalog, page.context.products)?.goesLive?.submitLabel ?? 'Finish setup'
          }
        >
          <p>You can change these answers later; your assistant uses the latest ones.</p>
        </StepForm>
      </>
    ),
    // Finishing: live once, with its audit event in the same transaction.
    save: async (_value, context, nowIso) => {
      const { partner, session, requestId } = context;
      await markLive(session.provisioned.propertyId, nowIso, {
        at: nowIso,
        actor: HOST_ACTOR,
        action: 'onboarding.completed',
        partnerId: partner.id,
        hostId: session.provisioned.hostUserId,
        propertyId: session.provisioned.propertyId,
        linkNonce: session.claims.nonce,
        ...(requestId ? { requestId } : {}),
      });
    },
  }),
];

/** The page after the last step: shown once the host has finished, never numbered. */
export const WIZARD_FINISH = {
  id: 'done',
  title: 'You are live',
  reached: (context: WizardContext) => Boolean(context.knowledgeBase.assistantLiveAt),
  render: (context: WizardContext, catalog: readonly Product[]) => {
    const live = productGoingLive(catalog, context.products)?.goesLive;
    return (
      <div class="notice success" role="status">
        <p class="lead">
          <strong>{live ? live.liveMessage : 'Your setup is complete.'}</strong>
        </p>
        <p>
          {live
            ? `It knows the check-in instructions, ${context.knowledgeBase.faqs.length} answers and ${context.knowledgeBase.upsells.length} offers for ${context.propertyName}.`
            : `The products you chose are active for ${context.propertyName}.`}{' '}
          You can close this tab and return to {context.partner.name}.
        </p>
      </div>
    );
  },
} as const;
