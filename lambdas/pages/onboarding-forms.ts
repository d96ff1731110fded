import type { KnowledgeBase, UpsellOffer } from '../data/knowledge-base';
import { isOneLine } from '../domain/text';

/** Reading the wizard's forms: values are kept as typed so a refused form shows them again. */
export type FormResult<T> = { ok: true; value: T } | { ok: false; errors: string[] };

export const MAX_FAQS = 20;
export const MAX_UPSELLS = 20;
export const CURRENCIES = ['EUR', 'USD', 'GBP', 'CHF', 'AUD', 'CAD'] as const;

const text = (form: URLSearchParams, name: string) => (form.get(name) ?? '').trim();

export function parseDetails(
  form: URLSearchParams,
): FormResult<{ propertyName: string; checkInInstructions: string }> {
  const propertyName = text(form, 'property_name');
  const checkInInstructions = text(form, 'checkin_instructions');
  const errors: string[] = [];
  if (propertyName.length < 1 || propertyName.length > 120 || !isOneLine(propertyName)) {
    errors.push('Property name: enter 1 to 120 characters, on one line.');
  }
  if (checkInInstructions.length < 10 || checkInInstructions.length > 4_000) {
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
    else if (question.length > 300 || answer.length > 2_000)
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
    if (!title || title.length > 120)
      errors.push(`Offer ${index + 1}: give it a title of up to 120 characters.`);
    else if (description.length > 1_000)
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
