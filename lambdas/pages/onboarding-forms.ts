import type { KnowledgeBase, UpsellOffer } from '../data/knowledge-base';
import { isOneLine } from '../domain/text';

/** Reading the wizard's forms: values are kept as typed so a refused form shows them again. */
export type FormResult<T> = { ok: true; value: T } | { ok: false; errors: string[] };

export const MAX_FAQS = 20;
export const MAX_UPSELLS = 20;
export const CURRENCIES = ['EUR', 'USD', 'GBP', 'CHF', 'AUD', 'CAD'] as const;

/** The longest text each wizard field takes: the page's `maxlength` and the parsers' check. */
export const FIELD_MAX_LENGTH = {
  property_name: 120,
  checkin_instructions: 4_000,
  question: 300,
  answer: 2_000,
  title: 120,
  description: 1_000,
} as const;
type TextField = keyof typeof FIELD_MAX_LENGTH;

const FIELD_LABEL: Record<TextField, string> = {
  property_name: 'The property name',
  checkin_instructions: 'The check-in instructions',
  question: 'A question',
  answer: 'An answer',
  title: 'An offer title',
  description: 'An offer description',
};

/**
 * The longest urlencoded body the wizard's forms produce. The largest step is the questions:
 * 20 × (300 + 2,000) = 46,000 characters; urlencoded, a character takes at most 9 (one of 3
 * UTF-8 bytes is `%XX%XX%XX`; a pair of 4 bytes takes 12 for 2); field names, the step and the
 * CSRF token add under 4,000. A longer body cannot come from these pages as served.
 */
export const MAX_FORM_BODY_CHARS =
  9 * MAX_FAQS * (FIELD_MAX_LENGTH.question + FIELD_MAX_LENGTH.answer) + 4_000;

const count = (value: number) => value.toLocaleString('en-US');

/** What in a form is longer than its field takes, in words a host reads ("An answer has 5,120 …"). */
export function overlongFields(form: URLSearchParams): string[] {
  const found: string[] = [];
  for (const field of Object.keys(FIELD_MAX_LENGTH) as TextField[]) {
    const longest = Math.max(0, ...form.getAll(field).map((value) => value.trim().length));
    if (longest > FIELD_MAX_LENGTH[field])
      found.push(
        `${FIELD_LABEL[field]} has ${count(longest)} characters; it takes at most ${count(FIELD_MAX_LENGTH[field])}.`,
      );
  }
  return found;
}

const text = (form: URLSearchParams, name: string) => (form.get(name) ?? '').trim();

export function parseDetails(
  form: URLSearchParams,
): FormResult<{ propertyName: string; checkInInstructions: string }> {
  const propertyName = text(form, 'property_name');
  const checkInInstructions = text(form, 'checkin_instructions');
  const errors: string[] = [];
  if (
    propertyName.length < 1 ||
    propertyName.length > FIELD_MAX_LENGTH.property_name ||
    !isOneLine(propertyName)
  ) {
    errors.push('Property name: enter 1 to 120 characters, on one line.');
  }
  if (checkInInstructions.length < 10 || checkInInstructions.length > FIELD_MAX_LENGTH.checkin_instructions) {
    errors.push(
      'Check-in instructions: enter 10 to 4,000 characters, e.g. where the keys are and from what time.',
    );
  }
  return errors.length > 0
    ? { ok: false, errors }
    : { ok: true, value: { propertyName, checkInInstructions } };
}

export function parseFaqs(form: URLSearchParams): FormResult<KnowledgeBase['faqs']> {
  const questions = form.getAll('question').map((value) => value.trim());
  const answers = form.getAll('answer').map((value) => value.trim());
  const errors: string[] = [];
  const faqs: { question: string; answer: string }[] = [];
  questions.forEach((question, index) => {
    const answer = answers[index] ?? '';
    if (!question && !answer) return;
    if (!question || !answer) errors.push(`Question ${index + 1}: fill in both the question and its answer.`);
    else if (question.length > FIELD_MAX_LENGTH.question || answer.length > FIELD_MAX_LENGTH.answer)
      errors.push(`Question ${index + 1}: keep questions under 300 and answers under 2,000 characters.`);
    else faqs.push({ question, answer });
  });
  if (faqs.length === 0 && errors.length === 0)
    errors.push('Add at least one question your guests often ask, with its answer.');
  if (faqs.length > MAX_FAQS) errors.push(`Add at most ${MAX_FAQS} questions.`);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: faqs };
}

/** A guest price such as `25` or `19.90`, in minor units. */
export function parsePrice(value: string): number | undefined {
  const match = /^(\d{1,5})(?:[.,](\d{1,2}))?$/.exec(value.trim());
  if (!match) return undefined;
  return Number(match[1]) * 100 + Number((match[2] ?? '0').padEnd(2, '0'));
}

export function parseUpsells(form: URLSearchParams): FormResult<UpsellOffer[]> {
  const titles = form.getAll('title').map((value) => value.trim());
  const descriptions = form.getAll('description').map((value) => value.trim());
  const prices = form.getAll('price').map((value) => value.trim());
  const currencies = form.getAll('currency');
  const errors: string[] = [];
  const upsells: UpsellOffer[] = [];
  titles.forEach((title, index) => {
    const description = descriptions[index] ?? '';
    const price = prices[index] ?? '';
    if (!title && !description && !price) return;
    const priceMinor = parsePrice(price);
    const currency = (CURRENCIES as readonly string[]).includes(currencies[index] ?? '')
      ? (currencies[index] ?? 'EUR')
      : undefined;
    if (!title || title.length > FIELD_MAX_LENGTH.title)
      errors.push(`Offer ${index + 1}: give it a title of up to 120 characters.`);
    else if (description.length > FIELD_MAX_LENGTH.description)
      errors.push(`Offer ${index + 1}: keep the description under 1,000 characters.`);
    else if (priceMinor === undefined)
      errors.push(`Offer ${index + 1}: enter the guest price as a number, e.g. 25 or 19.90.`);
    else if (!currency) errors.push(`Offer ${index + 1}: choose a currency.`);
    else upsells.push({ title, description, priceMinor, currency });
  });
  if (upsells.length > MAX_UPSELLS) errors.push(`Add at most ${MAX_UPSELLS} offers.`);
  return errors.length > 0 ? { ok: false, errors } : { ok: true, value: upsells };
}

export function formatPrice(offer: UpsellOffer): string {
  return `${offer.currency} ${(offer.priceMinor / 100).toFixed(2)}`;
}
