import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { problemSchema, responseSchemas } from '../../core/contract/api-schemas';
import { withClosedObjects } from '../../openapi/contract';
import { partnerApiDocument } from '../../openapi/document';

type Json = Record<string, unknown>;

const document = partnerApiDocument();
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
for (const format of ['int32', 'int64', 'double', 'float']) ajv.addFormat(format, true);
// Closed, as our own contract check holds the server: an example with an undocumented field fails.
ajv.addSchema({ ...withClosedObjects(document), $id: 'document.json' });
const validate = (schema: Json, value: unknown): string | undefined => {
  const check = ajv.compile(
    typeof schema.$ref === 'string' ? { $ref: `document.json${schema.$ref}` } : schema,
  );
  return check(value) ? undefined : ajv.errorsText(check.errors);
};
const resolve = (value: Json): Json =>
  typeof value.$ref === 'string'
    ? (value.$ref
        .replace(/^#\//, '')
        .split('/')
        .reduce<Json>((node, key) => (node[key] ?? {}) as Json, document) as Json)
    : value;

const operations = Object.entries(document.paths as Record<string, Record<string, Json>>).flatMap(
  ([path, item]) => Object.entries(item).map(([method, operation]) => ({ path, method, operation })),
);
const responses = operations.flatMap(({ path, method, operation }) =>
  Object.entries(operation.responses as Record<string, Json>).map(([status, response]) => ({
    where: `${method.toUpperCase()} ${path} ${status}`,
    method,
    status,
    // A shared response is a `$ref` to components/responses: checked where each operation uses it.
    response: resolve(response),
  })),
);

describe('examples of the OpenAPI document', () => {
  it('every response with a body has an example for each media type, and every GET response has a body', () => {
    const missing: string[] = [];
    for (const { where, method, status, response } of responses) {
      const content = response.content as Record<string, Json> | undefined;
      if (!content) {
        if (method !== 'head' && status !== '304') missing.push(`${where}: no content`);
        continue;
      }
      for (const [media, body] of Object.entries(content)) {
        const examples = Object.keys((body.examples ?? {}) as Json);
        if (examples.length === 0 && body.example === undefined) missing.push(`${where} ${media}`);
      }
    }

    expect(missing).toEqual([]);
    expect(responses.length).toBeGreaterThan(40);
  });

  it('every example matches its schema, closed to undocumented fields', () => {
    const broken: string[] = [];
    let checked = 0;
    for (const { where, response } of responses) {
      for (const [media, body] of Object.entries((response.content ?? {}) as Record<string, Json>)) {
        const examples = Object.entries((body.examples ?? {}) as Record<string, { value: unknown }>);
        for (const [name, example] of examples) {
          checked += 1;
          const error = validate(body.schema as Json, example.value);
          if (error) broken.push(`${where} ${media} ${name}: ${error}`);
        }
      }
    }

    expect(broken).toEqual([]);
    expect(checked).toBeGreaterThan(50);
  });

  it('the 200 and problem examples parse with the zod schemas the document is generated from', () => {
    const parsed = new Set<string>();
    for (const { where, status, response } of responses) {
      for (const [media, body] of Object.entries((response.content ?? {}) as Record<string, Json>)) {
        const reference =
          String((body.schema as Json).$ref ?? '')
            .split('/')
            .at(-1) ?? '';
        const schema =
          reference === 'Problem'
            ? problemSchema
            : responseSchemas[reference as keyof typeof responseSchemas];
        if (!schema) continue;
        for (const example of Object.values((body.examples ?? {}) as Record<string, { value: unknown }>)) {
          expect(schema.safeParse(example.value).success, `${where} ${media}`).toBe(true);
          parsed.add(reference);
          // A problem's status is its response's, when it states one (the gateway's catch-alls cannot).
          const stated = (example.value as Json).status;
          if (reference === 'Problem' && stated !== undefined)
            expect(String(stated), where).toMatch(new RegExp(`^${status.replace(/X/g, '\\d')}$`));
        }
      }
    }
    // Every 200 body of the table had an example parsed, whatever route it is under.
    expect([...parsed].sort()).toEqual([...Object.keys(responseSchemas), 'Problem'].sort());
  });

  it('parameter and header examples match their schemas', () => {
    const broken: string[] = [];
    for (const { path, method, operation } of operations) {
      for (const parameter of (operation.parameters ?? []) as Json[]) {
        // A parameter no example could make work (the cursor) has none: docs/design/openapi.md.
        if (parameter.example === undefined) continue;
        const error = validate(parameter.schema as Json, parameter.example);
        if (error) broken.push(`${method} ${path} parameter ${String(parameter.name)}: ${error}`);
      }
    }
    for (const [name, header] of Object.entries(
      (document.components as { headers: Record<string, Json> }).headers,
    )) {
      const schema = resolve(header).schema as Json;
      for (const example of (schema.examples ?? []) as unknown[]) {
        const error = validate(schema, example);
        if (error) broken.push(`header ${name}: ${error}`);
      }
    }

    expect(broken).toEqual([]);
  });
});
