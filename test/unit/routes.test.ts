import { describe, expect, it } from 'vitest';
import { renderGatewayResponse } from '../../core/contract/gateway-responses';
import { problemCatalog } from '../../core/contract/problems';
import { partnerApiRoutes } from '../../core/routes';
import { partnerApiDocument } from '../../openapi/document';

describe('the route table', () => {
  it.each(partnerApiRoutes.map((route) => [route.path, route] as const))(
    '%s declares exactly the path parameters its path names',
    (_path, route) => {
      const named = [...route.path.matchAll(/\{(\w+)\}/g)].map((match) => match[1]);
      expect(route.pathParameters.map((parameter) => parameter.name)).toEqual(named);
      for (const parameter of route.pathParameters) {
        expect(Object.keys(problemCatalog)).toContain(parameter.notFound.problem);
        expect(parameter.description.length).toBeGreaterThan(0);
      }
    },
  );

  it('names a response schema that exists for every route', () => {
    const schemas = (partnerApiDocument().components as { schemas: Record<string, unknown> }).schemas;
    for (const route of partnerApiRoutes) expect(Object.keys(schemas)).toContain(route.responseSchema);
  });

  it('lists every route in the gateway 404 text', () => {
    const { body } = renderGatewayResponse('RESOURCE_NOT_FOUND', { requestId: 'r' });
    for (const route of partnerApiRoutes) expect(body).toContain(route.path);
  });
});
