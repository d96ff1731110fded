import type { ComponentChildren, VNode } from 'preact';
import type { Product, ProductId } from '../../core/domain/catalog';
import { productGoingLive, productIn } from '../../core/domain/catalog';
import { HOST_ACTOR } from '../data/audit';
import type { KnowledgeBase } from '../data/knowledge-base';
import { markLive, saveKnowledgeBase } from '../data/knowledge-base';
import type { Partner } from '../data/partners';
import type { PartnerFace } from './activation-layout';
import { CURRENCIES, FIELD_MAX_LENGTH, MAX_FAQS, MAX_UPSELLS } from './form-fields';
import type { HostSession } from './host-session';
import type { HostLocale, Messages } from './messages';
import type { FormError, FormResult } from './onboarding-forms';
import { parseDetails, parseFaqs, parseUpsells } from './onboarding-forms';

/** What every step of the onboarding wizard works on: the host's provisioned property. */
export interface WizardContext {
  readonly partner: Partner;
  readonly face: PartnerFace;
  readonly locale: HostLocale;
  readonly session: HostSession & { provisioned: { hostUserId: number; propertyId: number } };
  readonly csrf: string;
  /** The stored property name, or the contact's name until the host names the property. */
  readonly propertyName: string;
  readonly knowledgeBase: KnowledgeBase;
  /** The products active on the property, and the catalog that names them. */
  readonly products: readonly ProductId[];
  readonly catalog: readonly Product[];
  /** The steps of this host's wizard, in order (`wizardStepsFor`). */
  readonly steps: readonly AnyWizardStep[];
  /** API Gateway's id of this page request (audit events name it). */
  readonly requestId?: string;
}

/** What a step's page is drawn with. */
interface StepPage {
  readonly id: string;
  readonly context: WizardContext;
  /** Why the posted form was refused (none on a page shown from what is stored). */
  readonly errors: readonly FormError[];
  /** The rows a step of rows shows at least: one more than the host had, after "Add another". */
  readonly rows?: number;
}

/** A refused form keeps what the host typed (`typed`), so the step shows it again with the errors. */
type StepInput<Typed, Value> = { ok: true; value: Value } | { ok: false; errors: FormError[]; typed?: Typed };

/**
 * One step of the wizard. `Typed` is what its form shows again when refused, `Value` what it saves.
 * (Methods, not function properties, so steps of different types share the table's one type.)
 */
interface WizardStep<Typed, Value, Id extends string = string> {
  /** The step's name in the address (`onboarding?step=…`) and in its form. */
  readonly id: Id;
  /** Why the host is asked this: the step table of docs/design/host-pages.md (`npm run docs`) shows it. */
  readonly purpose: string;
  /**
   * The products that need this step: a host sees it when they activated any of them. Without
   * the list, the step closes the wizard: it is shown when any other step is.
   */
  readonly products?: readonly ProductId[];
  title(messages: Messages): string;
  /** The step's name in the progress indicator. */
  stage(messages: Messages): string;
  /** Reads the step's posted form (the parsers of `onboarding-forms.ts`). */
  parse(form: URLSearchParams, context: WizardContext): StepInput<Typed, Value>;
  /** The step's page below its heading: from what is stored, or from `typed` when its form was refused. */
  render(page: StepPage, typed?: Typed): VNode;
  /** Writes what `parse` read. */
  save(value: Value, context: WizardContext, nowIso: string): Promise<void>;
  /**
   * A step of rows (questions, offers), whose "Add another" saves and shows the step again with one
   * more row: the field every row has once, which counts the rows a form posted.
   */
  readonly rowField?: string;
  /** What the review page shows of this step; `number` is the step's place in the wizard (1 = first). */
  readonly review?: {
    summary(context: WizardContext, number: number): VNode;
    /** What is missing before the host can finish, if anything. */
    missing?(context: WizardContext, number: number): string | undefined;
    /** What a product going live knows from this step, for the closing page ("2 answers"). */
    known?(context: WizardContext): string;
  };
}

export type AnyWizardStep = WizardStep<unknown, unknown>;

/** Keeps a step's own types while it is written, and gives it the table's type (with its literal id). */
function wizardStep<Typed, Value, const Id extends string>(
  step: WizardStep<Typed, Value, Id>,
): AnyWizardStep & { readonly id: Id } {
  return step;
}

/** The submit value of a step form's Back button. */
export const BACK = 'back';
/** The submit value of "Add another" on a step of rows: save, then the same step with one more row. */
export const ADD_ROW = 'add';

function StepForm(props: { page: StepPage; submit: string; add?: string; children: ComponentChildren }) {
  const { page } = props;
  const m = page.context.locale.messages;
  const first = page.context.steps[0]?.id === page.id;
  return (
    <form
      method="post"
      action="onboarding"
      novalidate
      class={props.add ? 'rows' : undefined}
      aria-describedby={page.errors.length > 0 ? 'form-errors' : undefined}
    >
      <input type="hidden" name="csrf" value={page.context.csrf} />
      <input type="hidden" name="step" value={page.id} />
      {props.children}
      {/* Continue comes first in the form, so Enter in a field continues; Back shows on the left. */}
      <div class="actions">
        <button type="submit">{props.submit}</button>
        {first ? null : (
          <button type="submit" class="secondary" name="go" value={BACK}>
            {m.backButton}
          </button>
        )}
      </div>
      {/* After Continue in the form (Enter continues), shown under the rows by the style sheet. */}
      {props.add ? (
        <button type="submit" class="secondary add-row" name="go" value={ADD_ROW}>
          {props.add}
        </button>
      ) : null}
    </form>
  );
}

/** Rows shown when nothing is saved yet: room for a first and a second answer. */
const MIN_ROWS = 2;

/**
 * The rows of a step of rows, and the one that takes the focus. A refused form shows the rows as
 * typed, no more and no fewer (a failed save never grows the page). Otherwise the saved rows and
 * one empty row (at least MIN_ROWS), or the rows "Add another" asked for; the first row after the
 * saved ones then takes the focus.
 */
function rowsOf<T>(
  page: StepPage,
  saved: readonly T[],
  typed: readonly T[] | undefined,
  blank: T,
  max: number,
) {
  if (typed) return { rows: typed.length > 0 ? typed.slice(0, max) : [blank], focus: undefined };
  const count = Math.min(Math.max(max, saved.length), Math.max(MIN_ROWS, saved.length + 1, page.rows ?? 0));
  const rows = [...saved, ...Array.from({ length: Math.max(0, count - saved.length) }, () => blank)];
  return { rows, focus: page.rows !== undefined && saved.length < rows.length ? saved.length : undefined };
}

/**
 * A field's state on a refused form: `aria-invalid` and its message under the label when the
 * form's errors name it, linked from the field (`aria-describedby`, with any hint it has).
 */
function fieldState(page: StepPage, id: string, hint?: string) {
  const error = page.errors.find((candidate) => candidate.field === id);
  const describedBy = [hint, error ? `${id}-error` : undefined].filter(Boolean).join(' ');
  return {
    attributes: {
      'aria-invalid': error ? ('true' as const) : undefined,
      'aria-describedby': describedBy || undefined,
    },
    message: error ? (
      <p class="error-text" id={`${id}-error`}>
        {error.message}
      </p>
    ) : null,
  };
}

const withTyped = <Typed, Value>(parsed: FormResult<Value>, typed: () => Typed): StepInput<Typed, Value> =>
  parsed.ok ? parsed : { ...parsed, typed: typed() };

/** The host's products as they read them, in catalog order. */
function productNames(context: Pick<WizardContext, 'catalog' | 'products' | 'locale'>): string[] {
  const known = context.catalog.filter((product) => context.products.includes(product.id));
  const unknown = context.products.filter((id) => !known.some((product) => product.id === id));
  return [...known.map((product) => productIn(product, context.locale.language).name), ...unknown];
}

/**
 * The onboarding wizard, in order. Everything else follows from this table: which steps a host
 * sees (those of the products they activated), the pages' order and the progress indicator,
 * where each step's form goes next and back, what the review page lists and which step it names
 * when something is missing. Adding a step = one entry here (+ its form parser in
 * `onboarding-forms.ts`, its texts in the message catalogues, and how the browser tests fill it:
 * `STEP_FILLS` in test/support/wizard.ts).
 */
export const WIZARD_STEPS = [
  wizardStep({
    id: 'details',
    purpose:
      'the property name and check-in instructions: what guests need on arrival (the assistant answers with them, the guidebook and online check-in show them)',
    products: ['assistant', 'guidebook', 'checkin'],
    title: (m) => m.detailsTitle,
    stage: (m) => m.detailsStage,
    parse: (form, context) =>
      withTyped(parseDetails(form, context.locale.messages), () => ({
        propertyName: form.get('property_name') ?? '',
        checkInInstructions: form.get('checkin_instructions') ?? '',
      })),
    render: (page, typed) => {
      const m = page.context.locale.messages;
      const values = typed ?? {
        propertyName: page.context.propertyName,
        checkInInstructions: page.context.knowledgeBase.checkInInstructions,
      };
      const name = fieldState(page, 'property_name');
      const checkin = fieldState(page, 'checkin_instructions', 'checkin-help');
      return (
        <StepForm page={page} submit={m.saveAndContinue}>
          <label for="property_name">{m.propertyName}</label>
          {name.message}
          <input
            type="text"
            id="property_name"
            name="property_name"
            value={values.propertyName}
            maxlength={FIELD_MAX_LENGTH.property_name}
            required
            autocomplete="organization"
            {...name.attributes}
          />
          <label for="checkin_instructions">{m.checkinInstructions}</label>
          <p class="muted" id="checkin-help">
            {m.checkinHelp}
          </p>
          {checkin.message}
          <textarea
            id="checkin_instructions"
            name="checkin_instructions"
            maxlength={FIELD_MAX_LENGTH.checkin_instructions}
            required
            {...checkin.attributes}
          >
            {values.checkInInstructions}
          </textarea>
        </StepForm>
      );
    },
    save: async (value, context, nowIso) => {
      const property = sponsoredProperty(context);
      await saveKnowledgeBase(
        property,
        { checkInInstructions: value.checkInInstructions },
        nowIso,
        value.propertyName,
      );
    },
    review: {
      summary: (context, number) => {
        const m = context.locale.messages;
        return (
          <>
            <h2>{m.reviewCheckin}</h2>
            <p class="prewrap">
              {context.knowledgeBase.checkInInstructions || <em>{m.notFilledIn(number)}</em>}
            </p>
          </>
        );
      },
      missing: (context, number) =>
        context.knowledgeBase.checkInInstructions
          ? undefined
          : context.locale.messages.missingCheckin(number),
      known: (context) => context.locale.messages.knownCheckin,
    },
  }),
  wizardStep({
    id: 'faqs',
    purpose: "questions and answers: the assistant answers guests' questions from them",
    products: ['assistant'],
    title: (m) => m.faqsTitle,
    stage: (m) => m.faqsStage,
    parse: (form, context) =>
      withTyped(parseFaqs(form, context.locale.messages), () => {
        const answers = form.getAll('answer');
        return form.getAll('question').map((question, i) => ({ question, answer: answers[i] ?? '' }));
      }),
    render: (page, typed) => {
      const m = page.context.locale.messages;
      const { rows, focus } = rowsOf(
        page,
        page.context.knowledgeBase.faqs,
        typed,
        { question: '', answer: '' },
        MAX_FAQS,
      );
      return (
        <StepForm page={page} submit={m.saveAndContinue} add={m.addAnotherQuestion}>
          <p>{m.faqsIntro}</p>
          {rows.map((faq, index) => {
            const question = fieldState(page, `question-${index}`);
            const answer = fieldState(page, `answer-${index}`);
            return (
              <fieldset>
                <legend>{m.questionNumber(index + 1)}</legend>
                <label for={`question-${index}`}>{m.questionLabel}</label>
                {question.message}
                <input
                  type="text"
                  id={`question-${index}`}
                  name="question"
                  value={faq.question}
                  maxlength={FIELD_MAX_LENGTH.question}
                  autofocus={index === focus}
                  {...question.attributes}
                />
                <label for={`answer-${index}`}>{m.answerLabel}</label>
                {answer.message}
                <textarea
                  id={`answer-${index}`}
                  name="answer"
                  maxlength={FIELD_MAX_LENGTH.answer}
                  {...answer.attributes}
                >
                  {faq.answer}
                </textarea>
              </fieldset>
            );
          })}
        </StepForm>
      );
    },
    save: async (faqs, context, nowIso) => {
      await saveKnowledgeBase(sponsoredProperty(context), { faqs }, nowIso);
    },
    rowField: 'question',
    review: {
      summary: (context) => (
        <>
          <h2>{context.locale.messages.reviewQuestions(context.knowledgeBase.faqs.length)}</h2>
          <ul>
            {context.knowledgeBase.faqs.map((faq) => (
              <li>
                <strong>{faq.question}</strong> <span class="prewrap">{faq.answer}</span>
              </li>
            ))}
          </ul>
        </>
      ),
      missing: (context, number) =>
        context.knowledgeBase.faqs.length > 0 ? undefined : context.locale.messages.missingFaqs(number),
      known: (context) => context.locale.messages.knownAnswers(context.knowledgeBase.faqs.length),
    },
  }),
  wizardStep({
    id: 'upsells',
    purpose: 'the offers guests can book, with their prices',
    products: ['upsells'],
    title: (m) => m.upsellsTitle,
    stage: (m) => m.upsellsStage,
    parse: (form, context) =>
      withTyped(parseUpsells(form, context.locale.messages, priceExamples(context.locale)), () => {
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
      const { locale } = page.context;
      const { messages: m, formats } = locale;
      const saved = page.context.knowledgeBase.upsells.map((offer) => ({
        title: offer.title,
        description: offer.description,
        price: formats.decimal(offer.priceMinor),
        currency: offer.currency,
      }));
      const blank = { title: '', description: '', price: '', currency: 'EUR' };
      const { rows, focus } = rowsOf(page, saved, typed, blank, MAX_UPSELLS);
      return (
        <StepForm page={page} submit={m.saveAndContinue} add={m.addAnotherOffer}>
          <p>{m.upsellsIntro}</p>
          {rows.map((offer, index) => {
            const title = fieldState(page, `title-${index}`);
            const description = fieldState(page, `description-${index}`);
            const price = fieldState(page, `price-${index}`, `price-hint-${index}`);
            const currency = fieldState(page, `currency-${index}`);
            return (
              <fieldset>
                <legend>{m.offerNumber(index + 1)}</legend>
                <label for={`title-${index}`}>{m.offerTitle}</label>
                {title.message}
                <input
                  type="text"
                  id={`title-${index}`}
                  name="title"
                  value={offer.title}
                  maxlength={FIELD_MAX_LENGTH.title}
                  autofocus={index === focus}
                  {...title.attributes}
                />
                <label for={`description-${index}`}>{m.offerDescription}</label>
                {description.message}
                <textarea
                  id={`description-${index}`}
                  name="description"
                  maxlength={FIELD_MAX_LENGTH.description}
                  {...description.attributes}
                >
                  {offer.description}
                </textarea>
                <label for={`price-${index}`}>{m.guestPrice}</label>
                {/* A hint, not a placeholder: an example in the field reads as a price already filled in. */}
                <p class="muted hint" id={`price-hint-${index}`}>
                  {m.priceHint(priceExamples(locale))}
                </p>
                {price.message}
                <input
                  type="text"
                  inputmode="decimal"
                  id={`price-${index}`}
                  name="price"
                  value={offer.price}
                  {...price.attributes}
                />
                <label for={`currency-${index}`}>{m.currencyLabel}</label>
                {currency.message}
                <select id={`currency-${index}`} name="currency" {...currency.attributes}>
                  {CURRENCIES.map((option) => (
                    <option value={option} selected={option === offer.currency}>
                      {option}
                    </option>
                  ))}
                </select>
              </fieldset>
            );
          })}
        </StepForm>
      );
    },
    save: async (upsells, context, nowIso) => {
      await saveKnowledgeBase(sponsoredProperty(context), { upsells }, nowIso);
    },
    rowField: 'title',
    review: {
      summary: (context) => {
        const { messages: m, formats } = context.locale;
        const { upsells } = context.knowledgeBase;
        return (
          <>
            <h2>{m.reviewOffers(upsells.length)}</h2>
            {upsells.length === 0 ? (
              <p>{m.noOffers}</p>
            ) : (
              <ul>
                {upsells.map((offer) => (
                  <li class="prewrap">
                    {m.offerSummary({
                      title: offer.title,
                      price: formats.price(offer.priceMinor, offer.currency),
                      description: offer.description,
                    })}
                  </li>
                ))}
              </ul>
            )}
          </>
        );
      },
      known: (context) => context.locale.messages.knownOffers(context.knowledgeBase.upsells.length),
    },
  }),
  wizardStep({
    id: 'review',
    purpose: 'what the host gave, and what is missing before they can finish',
    title: (m) => m.reviewTitle,
    stage: (m) => m.reviewStage,
    parse: (_form, context) => {
      const missing = context.steps.flatMap(
        (step, index) => step.review?.missing?.(context, index + 1) ?? [],
      );
      return missing.length > 0
        ? { ok: false, errors: missing.map((message) => ({ message })) }
        : { ok: true, value: undefined };
    },
    render: (page) => {
      const { context } = page;
      const m = context.locale.messages;
      const going = productGoingLive(context.catalog, context.products);
      const submit = context.knowledgeBase.assistantLiveAt
        ? m.saveChanges
        : going
          ? (productIn(going, context.locale.language).goesLive?.submitLabel ?? m.finishSetup)
          : m.finishSetup;
      return (
        <>
          {/* The property's name leads, under the one heading, rather than a second heading stacked on it. */}
          <p class="lead">
            <strong>{context.propertyName}</strong>
          </p>
          <p>{m.activeProducts(productNames(context))}</p>
          {context.steps.map((step, index) => step.review?.summary(context, index + 1))}
          <StepForm page={page} submit={submit}>
            <p class="notice">{m.changeLater(context.partner.name)}</p>
          </StepForm>
        </>
      );
    },
    // Finishing: live once, with its audit event in the same transaction (a second finish, after
    // a new link reopened the wizard, only saves: the steps already did).
    save: async (_value, context, nowIso) => {
      const { partner, session, requestId } = context;
      await markLive(sponsoredProperty(context), nowIso, {
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
] as const satisfies readonly [AnyWizardStep, ...AnyWizardStep[]];

/** A step's id (`details`, `faqs`, …): tests key their tables of steps by it, so none can be left out. */
export type WizardStepId = (typeof WIZARD_STEPS)[number]['id'];

/** The property the host's session provisioned, as the partner sponsors it (what a save is conditioned on). */
function sponsoredProperty(context: WizardContext) {
  return { partnerId: context.session.partnerId, propertyId: context.session.provisioned.propertyId };
}

/** `25` and `19.90` as the host writes them (`19,90` in German). */
function priceExamples(locale: HostLocale): readonly [string, string] {
  return [locale.formats.number(25), locale.formats.decimal(1_990)];
}

/**
 * The steps of the wizard for these products: each step some of them need, then the closing
 * steps; none at all when no product needs a step (the host goes straight to the confirmation).
 */
export function wizardStepsFor(
  products: readonly ProductId[],
): (AnyWizardStep & { readonly id: WizardStepId })[] {
  const needed = WIZARD_STEPS.filter((step) => step.products?.some((product) => products.includes(product)));
  if (needed.length === 0) return [];
  return WIZARD_STEPS.filter((step) => !step.products || needed.includes(step));
}

/** The page after the last step (or instead of the wizard, when it has no step): never numbered. */
export const WIZARD_FINISH = {
  id: 'done',
  title: (m: Messages) => m.doneTitle,
  reached: (context: WizardContext) =>
    context.steps.length === 0 || Boolean(context.knowledgeBase.assistantLiveAt),
  render: (context: WizardContext) => {
    const { messages: m, language } = context.locale;
    const going = productGoingLive(context.catalog, context.products);
    const live = going ? productIn(going, language).goesLive : undefined;
    const known = context.steps.flatMap((step) => step.review?.known?.(context) ?? []);
    return (
      <div class="notice success" role="status">
        <p class="lead">
          <strong>{live ? live.liveMessage : m.setupComplete}</strong>
        </p>
        <p>{m.nowActive(productNames(context), context.propertyName)}</p>
        {live && known.length > 0 ? <p>{m.knowledgeSummary(known, context.propertyName)}</p> : null}
        <p>{m.closeTab(context.partner.name, context.face.website)}</p>
      </div>
    );
  },
} as const;
