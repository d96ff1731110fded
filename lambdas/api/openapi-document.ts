import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import document from '../../openapi/partner-api.json';

const body = JSON.stringify(document);

/** GET /openapi.json: this API's OpenAPI 3.1 description, public (no key), generated at build. */
export async function handler(event: APIGatewayProxyEvent): Promise<APIGatewayProxyResult> {
  return {
    statusCode: 200,
    headers: {
      'Content-Type': 'application/json',
      'Cache-Control': 'public, max-age=300',
      'X-Request-Id': event.requestContext?.requestId ?? '',
    },
    body,
  };
}
