import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import { isTransientAwsError } from '../common/aws-errors';
import { logger } from '../common/logger';
import { messagePage, tryAgainPage } from './html';

/**
 * Wraps a page handler: a busy or unreachable dependency becomes a "try again" page, and
 * anything unexpected a plain error page. Never a stack trace, never JSON for a browser.
 */
export function pageHandler(render: (event: APIGatewayProxyEvent) => Promise<APIGatewayProxyResult>) {
  return middy<APIGatewayProxyEvent, APIGatewayProxyResult>()
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use({
      before: async (request) => {
        logger.appendKeys({ requestId: request.event.requestContext?.requestId });
      },
      onError: async (request) => {
        if (isTransientAwsError(request.error)) {
          logger.warn('Transient dependency failure on a page', { error: request.error ?? undefined });
          request.response = tryAgainPage();
          return;
        }
        logger.error('Unexpected failure on a page', { error: request.error ?? undefined });
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
