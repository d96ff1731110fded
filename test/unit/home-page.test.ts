import { describe, expect, it } from 'vitest';
import { referenceLinks } from '../../lambdas/pages/home';

describe('the pages host root: where the API reference is', () => {
  it('links the same origin locally, where one server serves pages, API, document and reference', () => {
    expect(referenceLinks({ STAGE: 'local' })).toEqual({
      docs: '/partner-api/v1/docs',
      document: '/partner-api/v1/openapi.json',
    });
  });

  it('links the document of the stage’s API when the stack passes its base URL', () => {
    expect(
      referenceLinks({ STAGE: 'sandbox', API_BASE_URL: 'https://api.example.com/sandbox/partner-api/v1' }),
    ).toEqual({ document: 'https://api.example.com/sandbox/partner-api/v1/openapi.json' });
    expect(referenceLinks({ STAGE: 'production' })).toBeUndefined();
  });

  it('refuses a base URL that cannot be the API’s, with a message naming it', () => {
    expect(() =>
      referenceLinks({ STAGE: 'sandbox', API_BASE_URL: 'http://api.example.com/partner-api/v1' }),
    ).toThrow(/API_BASE_URL must be an https URL ending in \/partner-api\/v1/);
  });
});
