import { MAX_PROPERTY_NAME_LENGTH } from '../../core/domain/properties';

/**
 * The wizard's fields and their limits: the pages' `maxlength`, the forms' parsers and the message
 * catalogues all read them from here (which imports only a constant of core, so the catalogues can).
 */
export const MAX_FAQS = 20;
export const MAX_UPSELLS = 20;
export const CURRENCIES = ['EUR', 'USD', 'GBP', 'CHF', 'AUD', 'CAD'] as const;
export const MIN_CHECKIN_INSTRUCTIONS = 10;

/** The longest text each wizard field takes: the page's `maxlength` and the parsers' check. */
export const FIELD_MAX_LENGTH = {
  property_name: MAX_PROPERTY_NAME_LENGTH,
  checkin_instructions: 4_000,
  question: 300,
  answer: 2_000,
  title: 120,
  description: 1_000,
} as const;
export type TextField = keyof typeof FIELD_MAX_LENGTH;
