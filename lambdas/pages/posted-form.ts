import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { PartnerFace } from './activation-layout';
import type { PageResponse } from './html';
import type { HostLocale, Messages } from './messages';
import { formTooLargePage } from './page-responses';

/** How large a page's form can be as served, and what in a larger one was too long. */
export interface FormLimits {
  /** The longest urlencoded body the page's form can produce: a longer one answers 413. */
  readonly maxBodyChars: number;
  /** What in a longer form is longer than its field takes, in words a host reads ("An answer has 5,120 …"). */
  overlong(form: URLSearchParams, messages: Messages): string[];
}

/**
 * A form with no text a host types (the choice of a session, the products): a CSRF token, a link's
 * token (at most 4,096 characters, `MAX_TOKEN_LENGTH`) and product ids (at most 32 characters
 * each) fit 64 KiB many times over; a longer body is not one of these pages' forms. The wizard's
 * forms have limits of their own (`WIZARD_FORM`, from its steps' fields).
 */
export const PLAIN_FORM: FormLimits = { maxBodyChars: 65_536, overlong: () => [] };

/** A posted form, or the page that says it is longer than the page's form can be. */
export type PostedForm =
  | { readonly ok: true; readonly form: URLSearchParams }
  | { readonly ok: false; readonly page: PageResponse };

/** An urlencoded form body (API Gateway may hand it over base64-encoded), within its form's size. */
export function postedForm(
  event: APIGatewayProxyEvent,
  locale: HostLocale,
  partner: PartnerFace,
  limits: FormLimits,
): PostedForm {
  const raw = event.body ?? '';
  const text = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  if (text.length <= limits.maxBodyChars) return { ok: true, form: new URLSearchParams(text) };
  const form = new URLSearchParams(text);
  return { ok: false, page: formTooLargePage(locale, partner, limits.overlong(form, locale.messages)) };
}
