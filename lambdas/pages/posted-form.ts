import type { APIGatewayProxyEvent } from 'aws-lambda';
import type { PartnerFace } from './activation-layout';
import type { PageResponse } from './html';
import type { HostLocale } from './messages';
import { MAX_FORM_BODY_CHARS, overlongFields } from './onboarding-forms';
import { formTooLargePage } from './page-responses';

/** A posted form, or the page that says it is longer than these pages' forms can be. */
export type PostedForm =
  | { readonly ok: true; readonly form: URLSearchParams }
  | { readonly ok: false; readonly page: PageResponse };

/** An urlencoded form body (API Gateway may hand it over base64-encoded), within the wizard's size. */
export function postedForm(
  event: APIGatewayProxyEvent,
  locale: HostLocale,
  partner: PartnerFace,
): PostedForm {
  const raw = event.body ?? '';
  const text = event.isBase64Encoded ? Buffer.from(raw, 'base64').toString('utf8') : raw;
  if (text.length <= MAX_FORM_BODY_CHARS) return { ok: true, form: new URLSearchParams(text) };
  const form = new URLSearchParams(text);
  return { ok: false, page: formTooLargePage(locale, partner, overlongFields(form, locale.messages)) };
}
