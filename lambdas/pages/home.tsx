import type { APIGatewayProxyResult } from 'aws-lambda';
import { API_BASE_PATH } from '../../core/routes';
import { htmlPage, Layout } from './html';
import { pageHandler } from './page-handler';

/**
 * Where the API reference is, seen from this host. The local server serves the API, its document
 * and the rendered reference on the same origin as the pages; a deployed stage serves the pages on
 * their own host and the document with the API, whose base URL the stack may pass as
 * `API_BASE_URL` (without it the page names the document relative to the base URL in the
 * partner's onboarding e-mail).
 */
export function referenceLinks(
  environment: Record<string, string | undefined>,
): { docs?: string; document: string } | undefined {
  if (environment.STAGE === 'local')
    return { docs: `${API_BASE_PATH}/docs`, document: `${API_BASE_PATH}/openapi.json` };
  const base = environment.API_BASE_URL?.trim();
  if (!base) return undefined;
  if (!/^https:\/\/[^\s/]+\/\S*$/.test(base) || !base.endsWith(API_BASE_PATH))
    throw new Error(`API_BASE_URL must be an https URL ending in ${API_BASE_PATH}; got "${base}".`);
  return { document: `${base}/openapi.json` };
}

/**
 * `/` of the pages host: what this host is (the pages behind reveal and activation links) and
 * where partner engineers find the API reference. The links people follow lead deeper; someone
 * who strips a link to its host lands here instead of on an error.
 */
export const handler = pageHandler(async (): Promise<APIGatewayProxyResult> => {
  const links = referenceLinks(process.env);
  return htmlPage(200, (nonce) => (
    <Layout title="Partner pages" nonce={nonce}>
      <h1>Partner pages</h1>
      <p class="lead">
        This address serves the pages that links lead to: a partner's one-time API key reveal, and the
        activation of a host sponsored by a partner. There is nothing else to open here.
      </p>
      <ul>
        <li>
          <strong>A host</strong> setting up the guest assistant: open the activation link your platform gave
          you (it works once, for a limited time). If it expired, ask your platform for a fresh one.
        </li>
        <li>
          <strong>A partner</strong> with a reveal link: open the link from the e-mail exactly as it came; it
          shows your API key once.
        </li>
      </ul>
      <h2>Partner API reference</h2>
      {links ? (
        <p>
          {links.docs ? (
            <>
              The <a href={links.docs}>API reference</a> and its{' '}
            </>
          ) : (
            'The '
          )}
          <a href={links.document}>OpenAPI document</a> describe every endpoint, status and field.
        </p>
      ) : (
        <p>
          The API has its own base URL, in the e-mail that came with your key; its OpenAPI document is at{' '}
          <code>{`{base_url}/openapi.json`}</code> (no key needed).
        </p>
      )}
    </Layout>
  ));
});
