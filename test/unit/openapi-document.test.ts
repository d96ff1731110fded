import { describe, expect, it } from 'vitest';
import { servedDocument } from '../../lambdas/api/openapi-document';
import document from '../../openapi/partner-api.json';

describe('the OpenAPI document a stage serves (GET /openapi.json)', () => {
  it('names the stage’s own base URL as its one server, and how to reach us there', () => {
    const served = JSON.parse(
      servedDocument('partners@hostly.io', 'https://api.hostly.io/partner-api/v1'),
    ) as typeof document;

    // A client generated from it, or a reference page's "try it", calls this stage and nothing else.
    expect(served.servers).toEqual([
      { url: 'https://api.hostly.io/partner-api/v1', description: expect.stringContaining('This stage') },
    ]);
    expect(served.info.contact.email).toBe('partners@hostly.io');
    expect(served.paths).toEqual(document.paths);
  });

  it('is the generated document, servers and contact alike, where the stage gives neither (locally)', () => {
    expect(JSON.parse(servedDocument(undefined, undefined))).toEqual(document);
  });
});
