import { isMultiLineText, isOneLine, withUnixLineBreaks } from '../../core/domain/text';
import type { KnowledgeBase, UpsellOffer } from '../data/knowledge-base';
import type { Messages } from './messages';

/**
 * What to fix in a refused form: the message, and the id of the field it is about (the page marks
 * that field and links to it from the summary), when it is about one.
 */
export interface FormError {
  readonly message: string;
  readonly field?: string;
}

/** Reading the wizard's forms: values are kept as typed so a refused form shows them again. */
export type FormResult<T> = { ok: true; value: T } | { ok: false; errors: FormError[] };

const about = (field: string, message: string): FormError => ({ message, field });

import {
  CURRENCIES,
  FIELD_MAX_LENGTH,
  MAX_FAQS,
  MAX_UPSELLS,
  MIN_CHECKIN_INSTRUCTIONS,
  type TextField,
} from './form-fields';

/**
 * The longest urlencoded body the wizard's forms produce. The largest step is the questions:
 * 20 × (300 + 2,000) = 46,000 characters; urlencoded, a character takes at most 9 (one of 3
 * UTF-8 bytes is `%XX%XX%XX`; a pair of 4 bytes takes 12 for 2); field names, the step and the
 * CSRF token add under 4,000. A longer body cannot come from these pages as served.
 */
export const MAX_FORM_BODY_CHARS =
  9 * MAX_FAQS * (FIELD_MAX_LENGTH.question + FIELD_MAX_LENGTH.answer) + 4_000;

/** What in a form is longer than its field takes, in words a host reads ("An answer has 5,120 …"). */
export function overlongFields(form: URLSearchParams, messages: Messages): string[] {
  const found: string[] = [];
  for (const field of Object.keys(FIELD_MAX_LENGTH) as TextField[]) {
    const longest = Math.max(0, ...form.getAll(field).map((value) => value.trim().length));
    if (longest > FIELD_MAX_LENGTH[field])
      found.push(messages.overlongField(field, longest, FIELD_MAX_LENGTH[field]));
  }
  return found;
}

/**
 * A field as stored: trimmed, line breaks as line feeds. One-line fields (a name, a question, a
 * title) then follow the one-line rule; text of several lines (instructions, answers,
 * descriptions) keeps line feeds and tabs and refuses every other control and text-direction
 * character (docs/design/README.md, "Text fields").
 */
const text = (value: string | null | undefined) => withUnixLineBreaks(value ?? '').trim();
const all = (form: URLSearchParams, name: string) => form.getAll(name).map(text);

export function parseDetails(
  form: URLSearchParams,
  messages: Messages,
): FormResult<{ propertyName: string; checkInInstructions: string }> {
  const propertyName = text(form.get('property_name'));
  const checkInInstructions = text(form.get('checkin_instructions'));
  const errors: FormError[] = [];
  if (
    propertyName.length < 1 ||
    propertyName.length > FIELD_MAX_LENGTH.property_name ||
    !isOneLine(propertyName)
  ) {
    errors.push(about('property_name', messages.errorPropertyName(FIELD_MAX_LENGTH.property_name)));
  }
  if (
    checkInInstructions.length < MIN_CHECKIN_INSTRUCTIONS ||
    checkInInstructions.length > FIELD_MAX_LENGTH.checkin_instructions
  ) {
    errors.push(
      about(
        'checkin_instructions',
        messages.errorCheckin(MIN_CHECKIN_INSTRUCTIONS, FIELD_MAX_LENGTH.checkin_instructions),
      ),
    );
  } else if (!isMultiLineText(checkInInstructions))
    errors.push(about('checkin_instructions', messages.errorCheckinCharacters));
  return errors.length > 0
    ? { ok: false, errors }
    : { ok: true, value: { propertyName, checkInInstructions } };
}

export function parseFaqs(form: URLSearchParams, messages: Messages): FormResult<KnowledgeBase['faqs']> {
  const questions = all(form, 'question');
  const answers = all(form, 'answer');
  // More rows than the page ever shows: refused whole, before any row is looked at.
  if (Math.max(questions.length, answers.length) > MAX_FAQS)
    return { ok: false, errors: [{ message: messages.errorFaqTooMany(MAX_FAQS) }] };
  const errors: FormError[] = [];
  const faqs: { question: string; answer: string }[] = [];
  questions.forEach((question, index) => {
    const answer = answers[index] ?? '';
    const number = index + 1;
    const [questionField, answerField] = [`question-${index}`, `answer-${index}`];
    if (!question && !answer) return;
    if (!question || !answer)
      errors.push(about(question ? answerField : questionField, messages.errorFaqIncomplete(number)));
    else if (question.length > FIELD_MAX_LENGTH.question || answer.length > FIELD_MAX_LENGTH.answer)
      errors.push(
        about(
          question.length > FIELD_MAX_LENGTH.question ? questionField : answerField,
          messages.errorFaqTooLong(number, FIELD_MAX_LENGTH.question, FIELD_MAX_LENGTH.answer),
        ),
      );
    else if (!isOneLine(question)) errors.push(about(questionField, messages.errorFaqQuestionLine(number)));
    else if (!isMultiLineText(answer))
      errors.push(about(answerField, messages.errorFaqAnswerCharacters(number)));
    else faqs.push({ question, answer });
  });
  if (faqs.length === 0 && errors.length === 0) errors.push(about('question-0', messages.errorFaqNone));
  if (faqs.length > MAX_FAQS) errors.push({ message: messages.errorFaqTooMany(MAX_FAQS) });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: faqs };
}

/** A guest price such as `25`, `19.90` or `19,90`, in minor units. */
export function parsePrice(value: string): number | undefined {
  const match = /^(\d{1,5})(?:[.,](\d{1,2}))?$/.exec(value.trim());
  if (!match) return undefined;
  return Number(match[1]) * 100 + Number((match[2] ?? '0').padEnd(2, '0'));
}

export function parseUpsells(
  form: URLSearchParams,
  messages: Messages,
  priceExamples: readonly [string, string],
): FormResult<UpsellOffer[]> {
  const titles = all(form, 'title');
  const descriptions = all(form, 'description');
  const prices = all(form, 'price');
  const currencies = form.getAll('currency');
  if (Math.max(titles.length, descriptions.length, prices.length, currencies.length) > MAX_UPSELLS)
    return { ok: false, errors: [{ message: messages.errorOfferTooMany(MAX_UPSELLS) }] };
  const errors: FormError[] = [];
  const upsells: UpsellOffer[] = [];
  titles.forEach((title, index) => {
    const description = descriptions[index] ?? '';
    const price = prices[index] ?? '';
    const number = index + 1;
    if (!title && !description && !price) return;
    const priceMinor = parsePrice(price);
    const currency = (CURRENCIES as readonly string[]).includes(currencies[index] ?? '')
      ? (currencies[index] ?? 'EUR')
      : undefined;
    if (!title || title.length > FIELD_MAX_LENGTH.title || !isOneLine(title))
      errors.push(about(`title-${index}`, messages.errorOfferTitle(number, FIELD_MAX_LENGTH.title)));
    else if (description.length > FIELD_MAX_LENGTH.description)
      errors.push(
        about(`description-${index}`, messages.errorOfferDescription(number, FIELD_MAX_LENGTH.description)),
      );
    else if (!isMultiLineText(description))
      errors.push(about(`description-${index}`, messages.errorOfferDescriptionCharacters(number)));
    else if (priceMinor === undefined)
      errors.push(about(`price-${index}`, messages.errorOfferPrice(number, priceExamples)));
    else if (!currency) errors.push(about(`currency-${index}`, messages.errorOfferCurrency(number)));
    else upsells.push({ title, description, priceMinor, currency });
  });
  if (upsells.length > MAX_UPSELLS) errors.push({ message: messages.errorOfferTooMany(MAX_UPSELLS) });
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: upsells };
}
