import type { APIGatewayProxyEvent, APIGatewayProxyResult } from 'aws-lambda';
import document from '../../openapi/partner-api.json';

/**
 * The document as this stage serves it: its contact is how partners reach us on this stage (the
 * stage's mail sender, `CONTACT_EMAIL`, as the reveal page names it), the generated one's otherwise.
 */
function servedDocument(contactEmail: string | undefined): string {
  if (!contactEmail) return JSON.stringify(document);
  return JSON.stringify({
    ...document,
    info: { ...document.info, contact: { ...document.info.contact, email: contactEmail } },
  });
}

const body = servedDocument(process.env.CONTACT_EMAIL?.trim());

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
