import { MAX_PROPERTY_NAME_LENGTH } from './properties';

/*
 * What a property's knowledge base can hold: the limits the onboarding wizard's forms enforce
 * (lambdas/pages/wizard-steps.tsx) and the `KnowledgeBaseSubmitted` event promises the platform
 * (core/contract/service-events.ts). One place, so the event's schema never allows less than the
 * wizard saves, nor more.
 */

/** Each text field of the wizard and the longest text it takes, by the step that asks for it. */
export const KNOWLEDGE_BASE_TEXT_LIMITS = {
  details: { property_name: MAX_PROPERTY_NAME_LENGTH, checkin_instructions: 4_000 },
  faqs: { question: 300, answer: 2_000 },
  upsells: { title: 120, description: 1_000 },
} as const satisfies Readonly<Record<string, Readonly<Record<string, number>>>>;

/** The fewest characters check-in instructions take. */
export const MIN_CHECKIN_INSTRUCTIONS = 10;
/** The most questions and offers a knowledge base holds. */
export const MAX_FAQS = 20;
export const MAX_OFFERS = 20;
/** Guest prices are in one of these. */
export const OFFER_CURRENCIES = ['EUR', 'USD', 'GBP', 'CHF', 'AUD', 'CAD'] as const;
export type OfferCurrency = (typeof OFFER_CURRENCIES)[number];
/** The highest guest price, in minor units (99,999.99). */
export const MAX_PRICE_MINOR = 9_999_999;
