import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { isTransientAwsError } from '../common/aws-errors';
import { logger } from '../common/logger';
import { hostMessagePage } from './activation-layout';
import type { PageResponse } from './html';
import { messagePage, tryAgainPage } from './html';
import type { HostLocale } from './messages';
import { hostLocale } from './messages';
import { hostTryAgainPage, secureCookies } from './page-responses';

/**
 * Wraps a page handler: a busy or unreachable dependency becomes a "try again" page, and
 * anything unexpected a plain error page. Never a stack trace, never JSON for a browser.
 */
export function pageHandler(
  render: (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>,
  localize?: (event: APIGatewayProxyEvent) => HostLocale,
) {
  return middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use({
      before: async (request) => {
        logger.appendKeys({ requestId: request.event.requestContext?.requestId });
      },
      onError: async (request) => {
        const locale = localize?.(request.event);
        if (isTransientAwsError(request.error)) {
          logger.warn('Transient dependency failure on a page', { error: request.error ?? undefined });
          request.response = locale ? withLanguageCookie(hostTryAgainPage(locale), locale) : tryAgainPage();
          return;
        }
        logger.error('Unexpected failure on a page', { error: request.error ?? undefined });
        const reference = request.event.requestContext?.requestId ?? 'unknown';
        if (locale) {
          const m = locale.messages;
          request.response = withLanguageCookie(
            hostMessagePage(500, locale, m.faultTitle, <p>{m.faultDetail(reference)}</p>),
            locale,
          );
          return;
        }
        request.response = messagePage(
          500,
          'Something went wrong',
          <p>
            This is a fault on our side and nothing was changed. Try again in a few minutes; if it persists,
            contact us quoting reference <code>{request.event.requestContext?.requestId ?? 'unknown'}</code>.
          </p>,
        );
      },
    })
    .handler(render);
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
