import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { problemCatalog, problemTypeUri } from '../../core/contract/problems';
import { withoutControlCharacters } from '../../core/domain/text';
import { logger } from '../common/logger';
import { authenticate } from './authenticate';

/**
 * The REQUEST authorizer. No key: "Unauthorized" (API Gateway's 401). A bad key: Deny, with the
 * problem in the context for the ACCESS_DENIED gateway response (a 401 naming why). A good key:
 * Allow, with the partner identity for the handlers and the usage-plan key for API Gateway.
 * Scope is checked by each route's handler from the route table (403).
 */
export async function handler(event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  const outcome = await authenticate(event.headers, Date.now());
  if (outcome.kind === 'missing') throw new Error('Unauthorized');
  if (outcome.kind === 'refused') {
    // The one line that says which key was refused and why: the access log of a refused request has
    // no key prefix and no reason, and support answers "my key stopped working" from this line
    // (docs/operators.md). Written only for refused keys, so a successful call pays nothing for it.
    logger.info('API key refused', {
      problem: outcome.problem,
      keyPrefix: outcome.keyPrefix,
      requestId: event.requestContext?.requestId,
    });
    return {
      principalId: outcome.keyPrefix ?? 'anonymous',
      policyDocument: policy('Deny', event.methodArn),
      context: {
        problemType: templateSafe(problemTypeUri(outcome.problem)),
        problemTitle: templateSafe(problemCatalog[outcome.problem].title),
        problemDetail: templateSafe(outcome.detail),
      },
    };
  }
  const { key } = outcome;
  return {
    principalId: `partner:${key.partnerId}`,
    policyDocument: policy('Allow', event.methodArn),
    context: { partnerId: key.partnerId, keyPrefix: key.prefix, scopes: key.scopes.join(' ') },
    ...(key.usageIdentifierKey ? { usageIdentifierKey: key.usageIdentifierKey } : {}),
  };
}

/**
 * The ACCESS_DENIED gateway response places these values inside JSON strings without escaping
 * (mapping templates of gateway responses have no $util): keep them free of what would break it.
 */
export function templateSafe(text: string): string {
  return withoutControlCharacters(text, ' ').replace(/["\\]/g, "'");
}

function policy(effect: 'Allow' | 'Deny', methodArn: string): APIGatewayAuthorizerResult['policyDocument'] {
  return {
    Version: '2012-10-17',
    Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: methodArn }],
  };
}
