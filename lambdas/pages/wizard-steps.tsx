import { randomUUID } from 'node:crypto';
import type { SubmittedKnowledgeBase } from '../../core/contract/service-events';
import type { ProductId } from '../../core/domain/catalog';
import { productGoingLive, productIn } from '../../core/domain/catalog';
import {
  KNOWLEDGE_BASE_TEXT_LIMITS,
  MAX_FAQS,
  MAX_OFFERS,
  MAX_PRICE_MINOR,
  MIN_CHECKIN_INSTRUCTIONS,
  OFFER_CURRENCIES,
  type OfferCurrency,
} from '../../core/domain/knowledge-base';
import type { PriceProblem } from '../../core/domain/prices';
import { readPrice } from '../../core/domain/prices';
import { isMultiLineText, isOneLine } from '../../core/domain/text';
import { HOST_ACTOR } from '../data/audit';
import {
  getKnowledgeBase,
  KnowledgeBaseChangedError,
  PropertyNotSponsoredError,
  submitKnowledgeBase,
} from '../data/knowledge-base';
import { getPropertyOfPartner } from '../data/properties';
import type { HostLocale, Messages } from './messages';
import type { FormLimits } from './posted-form';
import type { AnyWizardStep, FormError, StoredOf, WizardContext } from './wizard-step';
import {
  about,
  all,
  fieldState,
  rowsOf,
  StepForm,
  sponsoredProperty,
  storedList,
  text,
  wizardStep,
} from './wizard-step';

/**
 * Each step's text fields, by the step's id, and the longest text each takes: the page's
 * `maxlength`, the parser's check, the largest form the wizard can post (`WIZARD_FORM`) and the
 * 413 page's words, which name the field (`FIELD_NAMES` in each message catalogue: the compiler
 * asks each for a new field's name). A table beside the steps rather than a property of each
 * entry: the catalogues' type names these fields, and the entries' types depend on the
 * catalogues', so TypeScript could not infer one from the other. Its limits are the knowledge
 * base's (core/domain/knowledge-base.ts), which the `KnowledgeBaseSubmitted` event promises too.
 */
const TEXT_FIELDS = KNOWLEDGE_BASE_TEXT_LIMITS;

/** A text field of the wizard, whatever its step (the catalogues name each in `FIELD_NAMES`). */
export type TextField = {
  [Step in keyof typeof TEXT_FIELDS]: keyof (typeof TEXT_FIELDS)[Step];
}[keyof typeof TEXT_FIELDS];

const CURRENCIES = OFFER_CURRENCIES;

/** An offer as the upsells step stores it; the price in minor units (cents) of `currency`. */
const OFFER = { title: 'string', description: 'string', priceMinor: 'number', currency: 'string' } as const;
/**
 * A stored offer the page can show and save again: a currency it offers and a price its parser
 * takes (at most 99,999.99). Anything else (written by no step) is left out rather than shown.
 */
const isOfferable = (offer: StoredOf<typeof OFFER>) =>
  (CURRENCIES as readonly string[]).includes(offer.currency) &&
  Number.isSafeInteger(offer.priceMinor) &&
  offer.priceMinor >= 0 &&
  offer.priceMinor <= MAX_PRICE_MINOR;
/**
 * The rows a form posted: as many as its longest field list, so a row whose first field is missing
 * is read (and refused as incomplete) rather than skipped, and saving never drops a row unseen.
 */
const rowIndexes = (...fields: readonly (readonly string[])[]) =>
  Array.from({ length: Math.max(0, ...fields.map((values) => values.length)) }, (_, index) => index);
/** A question and its answer, as the questions step stores it. */
const FAQ = { question: 'string', answer: 'string' } as const;

/** The host's products as they read them, in catalog order. */
function productNames(context: Pick<WizardContext, 'catalog' | 'products' | 'locale'>): string[] {
  const known = context.catalog.filter((product) => context.products.includes(product.id));
  const unknown = context.products.filter((id) => !known.some((product) => product.id === id));
  return [...known.map((product) => productIn(product, context.locale.language).name), ...unknown];
}

/** What is wrong with an offer's price, in the host's words. */
function priceProblem(problem: PriceProblem, number: number, locale: HostLocale): string {
  const { messages, formats } = locale;
  switch (problem) {
    case 'negative':
      return messages.errorOfferPriceNegative(number);
    case 'decimals':
      return messages.errorOfferPriceDecimals(number, formats.decimal(1_990));
    case 'too-high':
      return messages.errorOfferPriceTooHigh(number, formats.number(MAX_PRICE_MINOR / 100));
    case 'unreadable':
      return messages.errorOfferPrice(number, priceExamples(locale));
  }
}

/** `25` and `19.90` as the host writes them (`19,90` in German). */
function priceExamples(locale: HostLocale): readonly [string, string] {
  return [locale.formats.number(25), locale.formats.decimal(1_990)];
}

/**
 * The onboarding wizard, in order. Everything else follows from this table: which steps a host
 * sees (those of the products they activated), the pages' order and the progress indicator,
 * where each step's form goes next and back, what the review page lists and which step it names
 * when something is missing, where each step's answers are stored, the form size the pages
 * accept. Each entry holds its step whole: its parser, its page, its attribute in the knowledge
 * base and the reader of what is stored there, its review. Adding a step = one entry here and its
 * row of `TEXT_FIELDS` (+ its texts in the message catalogues, a test of its parser, and how the
 * browser tests fill it: `STEP_FILLS` in test/support/wizard.ts); CONTRIBUTING.md has the recipe.
 */
export const WIZARD_STEPS = [
  wizardStep({
    id: 'details',
    purpose:
      'the property name and check-in instructions: what guests need on arrival (the assistant answers with them, the guidebook and online check-in show them)',
    products: ['assistant', 'guidebook', 'checkin'],
    title: (m) => m.detailsTitle,
    stage: (m) => m.detailsStage,
    // The attribute the knowledge base held before steps named their own.
    answers: {
      attribute: 'checkInInstructions',
      read: (stored) => (typeof stored === 'string' ? stored : ''),
    },
    parse: (form, { locale: { messages } }) => {
      const fields = TEXT_FIELDS.details;
      const propertyName = text(form.get('property_name'));
      const checkInInstructions = text(form.get('checkin_instructions'));
      const errors: FormError[] = [];
      if (propertyName.length < 1 || propertyName.length > fields.property_name || !isOneLine(propertyName))
        errors.push(about('property_name', messages.errorPropertyName(fields.property_name)));
      if (
        checkInInstructions.length < MIN_CHECKIN_INSTRUCTIONS ||
        checkInInstructions.length > fields.checkin_instructions
      ) {
        errors.push(
          about(
            'checkin_instructions',
            messages.errorCheckin(MIN_CHECKIN_INSTRUCTIONS, fields.checkin_instructions),
          ),
        );
      } else if (!isMultiLineText(checkInInstructions))
        errors.push(about('checkin_instructions', messages.errorCheckinCharacters));
      return errors.length > 0
        ? { ok: false, errors }
        : { ok: true, value: { propertyName, checkInInstructions } };
    },
    typed: (form) => ({
      propertyName: form.get('property_name') ?? '',
      checkInInstructions: form.get('checkin_instructions') ?? '',
    }),
    render: (page, saved, typed) => {
      const m = page.context.locale.messages;
      const values = typed ?? { propertyName: page.context.propertyName, checkInInstructions: saved };
      const name = fieldState(page, 'property_name', 'property-name-help');
      const checkin = fieldState(page, 'checkin_instructions', 'checkin-help');
      return (
        <StepForm page={page} submit={m.saveAndContinue}>
          <label for="property_name">{m.propertyName}</label>
          <p class="muted" id="property-name-help">
            {m.propertyNameHelp(page.context.partner.name)}
          </p>
          {name.message}
          <input
            type="text"
            id="property_name"
            name="property_name"
            value={values.propertyName}
            maxlength={TEXT_FIELDS.details.property_name}
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
            maxlength={TEXT_FIELDS.details.checkin_instructions}
            required
            {...checkin.attributes}
          >
            {values.checkInInstructions}
          </textarea>
        </StepForm>
      );
    },
    // The name is the property's own (the partner's property item), renamed in the same transaction.
    save: (value, store) => store(value.checkInInstructions, value.propertyName),
    submitted: (checkInInstructions, context) => ({
      property_name: context.propertyName,
      checkin_instructions: checkInInstructions,
    }),
    review: {
      summary: (checkInInstructions, context, number) => {
        const m = context.locale.messages;
        return (
          <>
            <h2>{m.reviewCheckin}</h2>
            <p class="prewrap">{checkInInstructions || <em>{m.notFilledIn(number)}</em>}</p>
          </>
        );
      },
      missing: (checkInInstructions, context, number) =>
        checkInInstructions ? undefined : context.locale.messages.missingCheckin(number),
      known: (_saved, context) => context.locale.messages.knownCheckin,
    },
  }),
  wizardStep({
    id: 'faqs',
    purpose: "questions and answers: the assistant answers guests' questions from them",
    products: ['assistant'],
    title: (m) => m.faqsTitle,
    stage: (m) => m.faqsStage,
    rows: { field: 'question', max: MAX_FAQS },
    answers: { attribute: 'faqs', read: (stored) => storedList(stored, FAQ) },
    parse: (form, { locale: { messages } }) => {
      const fields = TEXT_FIELDS.faqs;
      const questions = all(form, 'question');
      const answers = all(form, 'answer');
      // More rows than the page ever shows: refused whole, before any row is looked at.
      if (Math.max(questions.length, answers.length) > MAX_FAQS)
        return { ok: false, errors: [{ message: messages.errorFaqTooMany(MAX_FAQS) }] };
      const errors: FormError[] = [];
      const faqs: { question: string; answer: string }[] = [];
      rowIndexes(questions, answers).forEach((index) => {
        const question = questions[index] ?? '';
        const answer = answers[index] ?? '';
        const number = index + 1;
        const [questionField, answerField] = [`question-${index}`, `answer-${index}`];
        if (!question && !answer) return;
        if (!question || !answer)
          errors.push(about(question ? answerField : questionField, messages.errorFaqIncomplete(number)));
        else if (question.length > fields.question || answer.length > fields.answer)
          errors.push(
            about(
              question.length > fields.question ? questionField : answerField,
              messages.errorFaqTooLong(number, fields.question, fields.answer),
            ),
          );
        else if (!isOneLine(question))
          errors.push(about(questionField, messages.errorFaqQuestionLine(number)));
        else if (!isMultiLineText(answer))
          errors.push(about(answerField, messages.errorFaqAnswerCharacters(number)));
        else faqs.push({ question, answer });
      });
      if (faqs.length === 0 && errors.length === 0) errors.push(about('question-0', messages.errorFaqNone));
      return errors.length > 0 ? { ok: false, errors } : { ok: true, value: faqs };
    },
    typed: (form) => {
      const answers = form.getAll('answer');
      return form.getAll('question').map((question, i) => ({ question, answer: answers[i] ?? '' }));
    },
    render: (page, saved, typed) => {
      const m = page.context.locale.messages;
      const { rows, focus } = rowsOf(page, saved, typed, { question: '', answer: '' }, MAX_FAQS);
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
                  maxlength={TEXT_FIELDS.faqs.question}
                  autofocus={index === focus}
                  {...question.attributes}
                />
                <label for={`answer-${index}`}>{m.answerLabel}</label>
                {answer.message}
                <textarea
                  id={`answer-${index}`}
                  name="answer"
                  maxlength={TEXT_FIELDS.faqs.answer}
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
    save: (faqs, store) => store(faqs),
    submitted: (faqs) => ({ faqs: faqs.map(({ question, answer }) => ({ question, answer })) }),
    review: {
      summary: (faqs, context) => (
        <>
          <h2>{context.locale.messages.reviewQuestions(faqs.length)}</h2>
          <ul>
            {faqs.map((faq) => (
              <li>
                <strong>{faq.question}</strong> <span class="prewrap">{faq.answer}</span>
              </li>
            ))}
          </ul>
        </>
      ),
      missing: (faqs, context, number) =>
        faqs.length > 0 ? undefined : context.locale.messages.missingFaqs(number),
      known: (faqs, context) => context.locale.messages.knownAnswers(faqs.length),
    },
  }),
  wizardStep({
    id: 'upsells',
    purpose: 'the offers guests can book, with their prices',
    products: ['upsells'],
    title: (m) => m.upsellsTitle,
    stage: (m) => m.upsellsStage,
    rows: { field: 'title', max: MAX_OFFERS },
    answers: { attribute: 'upsells', read: (stored) => storedList(stored, OFFER).filter(isOfferable) },
    parse: (form, { locale }) => {
      const { messages } = locale;
      const fields = TEXT_FIELDS.upsells;
      const titles = all(form, 'title');
      const descriptions = all(form, 'description');
      const prices = all(form, 'price');
      const currencies = form.getAll('currency');
      if (Math.max(titles.length, descriptions.length, prices.length, currencies.length) > MAX_OFFERS)
        return { ok: false, errors: [{ message: messages.errorOfferTooMany(MAX_OFFERS) }] };
      const errors: FormError[] = [];
      const upsells: { title: string; description: string; priceMinor: number; currency: string }[] = [];
      rowIndexes(titles, descriptions, prices).forEach((index) => {
        const title = titles[index] ?? '';
        const description = descriptions[index] ?? '';
        const price = prices[index] ?? '';
        const number = index + 1;
        if (!title && !description && !price) return;
        const currency = (CURRENCIES as readonly string[]).includes(currencies[index] ?? '')
          ? (currencies[index] ?? 'EUR')
          : undefined;
        const priceRead = readPrice(price, locale.language, currency ?? 'EUR');
        if (!title || title.length > fields.title || !isOneLine(title))
          errors.push(about(`title-${index}`, messages.errorOfferTitle(number, fields.title)));
        else if (description.length > fields.description)
          errors.push(
            about(`description-${index}`, messages.errorOfferDescription(number, fields.description)),
          );
        else if (!isMultiLineText(description))
          errors.push(about(`description-${index}`, messages.errorOfferDescriptionCharacters(number)));
        else if (!priceRead.ok)
          errors.push(about(`price-${index}`, priceProblem(priceRead.problem, number, locale)));
        else if (!currency) errors.push(about(`currency-${index}`, messages.errorOfferCurrency(number)));
        else upsells.push({ title, description, priceMinor: priceRead.minor, currency });
      });
      return errors.length > 0 ? { ok: false, errors } : { ok: true, value: upsells };
    },
    typed: (form) => {
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
    },
    render: (page, offers, typed) => {
      const { locale } = page.context;
      const { messages: m, formats } = locale;
      const saved = offers.map((offer) => ({
        title: offer.title,
        description: offer.description,
        price: formats.decimal(offer.priceMinor),
        currency: offer.currency,
      }));
      const blank = { title: '', description: '', price: '', currency: 'EUR' };
      const { rows, focus } = rowsOf(page, saved, typed, blank, MAX_OFFERS);
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
                  maxlength={TEXT_FIELDS.upsells.title}
                  autofocus={index === focus}
                  {...title.attributes}
                />
                <label for={`description-${index}`}>{m.offerDescription}</label>
                {description.message}
                <textarea
                  id={`description-${index}`}
                  name="description"
                  maxlength={TEXT_FIELDS.upsells.description}
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
    save: (upsells, store) => store(upsells),
    submitted: (upsells) => ({
      offers: upsells.map((offer) => ({
        title: offer.title,
        description: offer.description,
        price_minor: offer.priceMinor,
        currency: offer.currency as OfferCurrency,
      })),
    }),
    review: {
      summary: (upsells, context) => {
        const { messages: m, formats } = context.locale;
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
      known: (upsells, context) => context.locale.messages.knownOffers(upsells.length),
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
    // Submitting: the whole knowledge base goes to the platform (the first time, live with its audit
    // event; every later "Save my changes" again), in one transaction with what it reports.
    save: (_value, _store, context, nowIso) => submitWizard(context, nowIso),
  }),
] as const satisfies readonly [AnyWizardStep, ...AnyWizardStep[]];

/**
 * The knowledge base the platform is sent: what each of the host's steps fills in from its answers
 * as stored (`submitted` of its entry), and empty where the host has no step for a field.
 */
export function submittedKnowledgeBase(context: WizardContext): SubmittedKnowledgeBase {
  return Object.assign(
    { property_name: context.propertyName, checkin_instructions: '', faqs: [], offers: [] },
    ...context.steps.map((step) => step.submitted?.(context) ?? {}),
  );
}

/** Tries of a submission that found the knowledge base changed since it was read (another tab). */
const SUBMISSION_ATTEMPTS = 3;

/**
 * Submits the wizard: `KnowledgeBaseSubmitted` with the knowledge base as stored. A save in another
 * tab between the page's read and the submission makes it read the property and its answers again.
 */
async function submitWizard(context: WizardContext, firstNowIso: string): Promise<void> {
  const { partner, session, requestId, locale } = context;
  const { hostUserId, propertyId } = session.provisioned;
  let current = context;
  for (let attempt = 1; ; attempt++) {
    const read = current;
    // Each attempt's own time: an event says when its transaction committed, not when the host clicked.
    const nowIso = attempt === 1 ? firstNowIso : new Date().toISOString();
    try {
      await submitKnowledgeBase(
        sponsoredProperty(read),
        read.knowledgeBase,
        {
          event: (version, first) => ({
            type: 'KnowledgeBaseSubmitted',
            detail: {
              event_id: randomUUID(),
              host_user_id: hostUserId,
              partner_id: partner.id,
              property_id: propertyId,
              first_submission: first,
              language: locale.language,
              knowledge_base: submittedKnowledgeBase(read),
              version,
              occurred_at: nowIso,
            },
          }),
          firstAudit: {
            at: nowIso,
            actor: HOST_ACTOR,
            action: 'onboarding.completed',
            partnerId: partner.id,
            hostId: hostUserId,
            propertyId,
            linkNonce: session.claims.nonce,
            ...(requestId ? { requestId } : {}),
          },
        },
        nowIso,
      );
      return;
    } catch (error) {
      if (error instanceof KnowledgeBaseChangedError && attempt < SUBMISSION_ATTEMPTS) {
        const [knowledgeBase, property] = await Promise.all([
          getKnowledgeBase(propertyId),
          getPropertyOfPartner(partner.id, propertyId, { consistent: true }),
        ]);
        current = { ...current, knowledgeBase, propertyName: property?.name ?? current.propertyName };
        continue;
      }
      // No answer (a timeout, a connection lost): the transaction may have committed all the same.
      // Then it was submitted, and the host is told so rather than asked to submit again.
      const refused =
        error instanceof KnowledgeBaseChangedError || error instanceof PropertyNotSponsoredError;
      if (!refused && (await submittedMeanwhile(propertyId, read))) return;
      throw error;
    }
  }
}

/** Whether a submission after `read` committed (its answer was lost on the way back). */
async function submittedMeanwhile(propertyId: number, read: WizardContext): Promise<boolean> {
  try {
    const now = await getKnowledgeBase(propertyId);
    return (now.submissionVersion ?? 0) > (read.knowledgeBase.submissionVersion ?? 0);
  } catch {
    return false;
  }
}

/** A step's id (`details`, `faqs`, …): tests key their tables of steps by it, so none can be left out. */
export type WizardStepId = (typeof WIZARD_STEPS)[number]['id'];

/** A step's text fields and the longest text each takes (none for a step without a row of them). */
export const textFieldsOf = (step: { readonly id: string }): Readonly<Record<string, number>> =>
  (TEXT_FIELDS as Readonly<Record<string, Readonly<Record<string, number>>>>)[step.id] ?? {};

/** The longest text each text field of the wizard takes, whatever its step. */
const FIELD_MAX_LENGTH = Object.assign({}, ...Object.values(TEXT_FIELDS)) as Readonly<
  Record<TextField, number>
>;

/** The most rows any step of rows shows (`rows=` asks for at most this many). */
export const MAX_ROWS = Math.max(1, ...WIZARD_STEPS.map((step: AnyWizardStep) => step.rows?.max ?? 1));

/**
 * The wizard's forms, for `postedForm`. The longest urlencoded body a step's form can produce: its
 * text fields at their longest, once per row for a step of rows, a character urlencoded at worst
 * in 9 (one of 3 UTF-8 bytes is `%XX%XX%XX`; a pair of 4 bytes takes 12 for 2), plus under 4,000
 * for field names, the step, the CSRF token, prices and currencies; the largest step's (the
 * questions: 9 × 20 × (300 + 2,000) + 4,000 = 418,000). A longer body cannot come from these pages
 * as served: it answers 413, naming each field longer than its step takes.
 */
export const WIZARD_FORM: FormLimits = {
  maxBodyChars:
    9 *
      Math.max(
        ...WIZARD_STEPS.map(
          (step: AnyWizardStep) =>
            (step.rows?.max ?? 1) * Object.values(textFieldsOf(step)).reduce((sum, max) => sum + max, 0),
        ),
      ) +
    4_000,
  overlong: (form, messages) =>
    (Object.keys(FIELD_MAX_LENGTH) as TextField[]).flatMap((field) => {
      const longest = Math.max(0, ...form.getAll(field).map((value) => value.trim().length));
      return longest > FIELD_MAX_LENGTH[field]
        ? [messages.overlongField(field, longest, FIELD_MAX_LENGTH[field])]
        : [];
    }),
};

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

/**
 * The page after the last step (or instead of the wizard, when it has no step): never numbered. It
 * says what is true (docs/design/host-pages.md#the-done-page): the answers were sent to the
 * platform, which runs the assistant, once the pipe took the submission's event (`sentAt`); until
 * then they are on their way. Answers saved after the last submission were not sent: the page says
 * so and leads back to the review, instead of counting them as known.
 */
export const WIZARD_FINISH = {
  id: 'done',
  title: (m: Messages) => m.doneTitle,
  reached: (context: WizardContext) =>
    context.steps.length === 0 || Boolean(context.knowledgeBase.assistantLiveAt),
  /** `sent`: whether the last submission's event was taken for delivery (true for one from before events). */
  render: (context: WizardContext, sent: boolean) => {
    const { messages: m, language } = context.locale;
    const { knowledgeBase } = context;
    const going = productGoingLive(context.catalog, context.products);
    const goingTexts = going ? productIn(going, language) : undefined;
    const live = goingTexts?.goesLive;
    const known = context.steps.flatMap((step) => step.review?.known?.(context) ?? []);
    // Saves are counted as they commit; the submission recorded the count it sent.
    const changedSince =
      knowledgeBase.submittedAt !== undefined &&
      (knowledgeBase.revision ?? 0) > (knowledgeBase.submittedRevision ?? 0);
    return (
      <>
        <div class="notice success" role="status">
          <p class="lead">
            <strong>
              {live && goingTexts
                ? sent
                  ? live.liveMessage
                  : m.answersOnTheirWay(goingTexts.name)
                : m.setupComplete}
            </strong>
          </p>
          <p>{m.nowActive(productNames(context), context.propertyName)}</p>
          {live && known.length > 0 && !changedSince ? (
            <p>
              {sent
                ? m.knowledgeSummary(known, context.propertyName)
                : m.knowledgeOnItsWay(known, context.propertyName)}
            </p>
          ) : null}
          <p>{m.closeTab(context.partner.name, context.face.website)}</p>
        </div>
        {changedSince ? (
          <p class="notice">
            {m.unsentChanges} <a href="onboarding?step=review">{m.reviewAndSend}</a>
          </p>
        ) : context.steps.length > 0 ? (
          <p>
            <a href="onboarding?step=review">{m.changeAnswers}</a>
          </p>
        ) : null}
      </>
    );
  },
} as const;
