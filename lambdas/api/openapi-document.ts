import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import document from '../../openapi/partner-api.json';

/**
 * The document as this stage serves it: its contact is how partners reach us on this stage (the
 * stage's mail sender, `CONTACT_EMAIL`, as the reveal page names it), and its one server this
 * stage's base URL (`API_BASE_URL`: its custom domain's, or its `execute-api` one), so a client
 * generated from it calls this stage. Without them (locally), the generated document's.
 */
export function servedDocument(contactEmail: string | undefined, apiBaseUrl: string | undefined): string {
  return JSON.stringify({
    ...document,
    info: contactEmail
      ? { ...document.info, contact: { ...document.info.contact, email: contactEmail } }
      : document.info,
    servers: apiBaseUrl
      ? [{ url: apiBaseUrl, description: 'This stage: the base URL in your onboarding e-mail.' }]
      : document.servers,
  });
}

const body = servedDocument(
  process.env.CONTACT_EMAIL?.trim() || undefined,
  process.env.API_BASE_URL?.trim() || undefined,
);

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
