import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { isTransientAwsError } from '../common/aws-errors';
import { logger } from '../common/logger';
import { hostMessagePage } from './activation-layout';
import type { PageResponse } from './html';
import { messagePage, tryAgainPage } from './html';
import type { HostLocale } from './messages';
import { hostLocale } from './messages';
import { hostTryAgainPage, secureCookies } from './page-responses';

/** How long before the function's own timeout a page gives up and answers (as middy's `timeoutEarly` did). */
const ANSWER_BEFORE_TIMEOUT_MS = 5;

/** Thrown when the function is about to time out: a transient failure, so the host is asked to try again. */
function timeoutError(): Error {
  return Object.assign(new Error('The page did not finish before the function timed out.'), {
    name: 'TimeoutError',
  });
}

/** `work`, or a `TimeoutError` shortly before the invocation's deadline, whichever comes first. */
async function beforeDeadline<T>(work: Promise<T>, context: Context | undefined): Promise<T> {
  const remaining = context?.getRemainingTimeInMillis?.();
  if (remaining === undefined) return work;
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(timeoutError()), Math.max(0, remaining - ANSWER_BEFORE_TIMEOUT_MS));
  });
  try {
    return await Promise.race([work, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Wraps a page handler: a busy or unreachable dependency becomes a "try again" page, and
 * anything unexpected a plain error page. Never a stack trace, never JSON for a browser.
 *
 * A plain function rather than middy: a page needs the Lambda context in its logs, one error
 * handler and an answer before the function times out, and middy's import (with `node:stream/web`)
 * is load time every page's cold start pays (docs/design/README.md#cold-start-is-billed).
 */
export function pageHandler(
  render: (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>,
  localize?: (event: APIGatewayProxyEvent) => HostLocale,
) {
  return async (event: APIGatewayProxyEvent, context?: Context): Promise<APIGatewayProxyResult> => {
    logger.refreshSampleRateCalculation();
    if (context) logger.addContext(context);
    logger.logEventIfEnabled(event);
    logger.appendKeys({ requestId: event.requestContext?.requestId });
    try {
      return await beforeDeadline(render(event), context);
    } catch (error) {
      return failurePage(event, error, localize);
    } finally {
      logger.resetKeys();
    }
  };
}

/** The page for a failure: "try again" for a transient one, else the fault page with its reference. */
function failurePage(
  event: APIGatewayProxyEvent,
  error: unknown,
  localize?: (event: APIGatewayProxyEvent) => HostLocale,
): APIGatewayProxyResult {
  const locale = localize?.(event);
  if (isTransientAwsError(error)) {
    logger.warn('Transient dependency failure on a page', { error });
    return locale ? withLanguageCookie(hostTryAgainPage(locale), locale) : tryAgainPage();
  }
  logger.error('Unexpected failure on a page', { error });
  const reference = event.requestContext?.requestId ?? 'unknown';
  if (locale) {
    const m = locale.messages;
    return withLanguageCookie(
      hostMessagePage(500, locale, m.faultTitle, <p>{m.faultDetail(reference)}</p>),
      locale,
    );
  }
  return messagePage(
    500,
    'Something went wrong',
    <p>
      This is a fault on our side and nothing was changed. Try again in a few minutes; if it persists, contact
      us quoting reference <code>{reference}</code>.
    </p>,
  );
}

/**
 * A host page's handler: `render` gets the page's language (docs/design/host-pages.md), and the
 * answer, whatever it is, keeps a language the host chose with the switch for the session.
 */
export function hostPageHandler(
  render: (event: APIGatewayProxyEvent, locale: HostLocale) => Promise<APIGatewayProxyResult>,
) {
  const localize = (event: APIGatewayProxyEvent) => hostLocale(event, secureCookies());
  return pageHandler(async (event) => {
    const locale = localize(event);
    return withLanguageCookie(await render(event, locale), locale);
  }, localize);
}

/** The answer with the language cookie added to any cookie it already sets. */
function withLanguageCookie<Response extends APIGatewayProxyResult | PageResponse>(
  response: Response,
  locale: HostLocale,
): Response {
  if (!locale.cookie) return response;
  const { 'Set-Cookie': sessionCookie, ...headers } = (response.headers ?? {}) as Record<string, string>;
  return {
    ...response,
    headers,
    multiValueHeaders: {
      ...response.multiValueHeaders,
      'Set-Cookie': [...(sessionCookie ? [sessionCookie] : []), locale.cookie],
    },
  };
}

/** A small JSON answer for a page's own script (the reveal button). */
export function pageJson(statusCode: number, body: unknown): APIGatewayProxyResult {
  return {
    statusCode,
    headers: {
      'Content-Type': 'application/json',
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
    },
    body: JSON.stringify(body),
  };
}
