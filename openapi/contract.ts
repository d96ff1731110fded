import { gunzipSync } from 'node:zlib';
import type { ValidateFunction } from 'ajv/dist/2020.js';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { API_BASE_PATH } from '../core/routes';

/** One response the API gave, as the client saw it. */
export interface ObservedExchange {
  readonly method: string;
  /** Full request path, including /partner-api/v1. */
  readonly path: string;
  readonly status: number;
  readonly headers: Record<string, string | string[]>;
  readonly body: string | Buffer;
}

type Json = Record<string, unknown>;

/** Transport headers, added by HTTP servers and gateways, that an API description does not list. */
const TRANSPORT_HEADERS = new Set([
  'date',
  'connection',
  'keep-alive',
  'content-length',
  'transfer-encoding',
  'x-amzn-requestid',
  'content-type',
]);
const DOCUMENT_ID = 'partner-api.json';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

/**
 * Checks responses against the OpenAPI document: an undocumented status, header or field, or a
 * body that breaks its schema, is a violation. Requests to no documented operation (unknown
 * paths, other methods) must still answer with the Problem schema.
 */
export function contractChecker(published: Json): (exchange: ObservedExchange) => string[] {
  const document = withClosedObjects(published);
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  for (const format of ['int32', 'int64', 'double', 'float']) ajv.addFormat(format, true);
  ajv.addSchema({ ...document, $id: DOCUMENT_ID });
  const validators = new Map<string, ValidateFunction>();
  const validatorFor = (schema: Json): ValidateFunction => {
    const reference = typeof schema.$ref === 'string' ? `${DOCUMENT_ID}${schema.$ref}` : undefined;
    const key = reference ?? JSON.stringify(schema);
    let validate = validators.get(key);
    if (!validate) {
      validate = ajv.compile(reference ? { $ref: reference } : schema);
      validators.set(key, validate);
    }
    return validate;
  };
  const paths = Object.entries((document.paths ?? {}) as Record<string, Json>).map(([template, item]) => ({
    pattern: new RegExp(
      `^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\\?\{\w+\\?\}/g, '[^/]+')}$`,
    ),
    item,
  }));
  const problem = validatorFor({ $ref: '#/components/schemas/Problem' });

  return (exchange) => {
    const where = `${exchange.method} ${exchange.path} → ${exchange.status}`;
    const apiPath = exchange.path.split('?')[0]?.slice(API_BASE_PATH.length) ?? '';
    const headers = Object.fromEntries(
      Object.entries(exchange.headers).map(([name, value]) => [
        name.toLowerCase(),
        [value].flat().join(', '),
      ]),
    );
    const contentType = (headers['content-type'] ?? '').split(';')[0]?.trim() ?? '';
    const bodyText = (() => {
      if (exchange.method === 'HEAD') return '';
      const bytes = typeof exchange.body === 'string' ? Buffer.from(exchange.body) : exchange.body;
      return headers['content-encoding'] === 'gzip'
        ? gunzipSync(bytes).toString('utf8')
        : bytes.toString('utf8');
    })();
    const parse = (): unknown => {
      try {
        return JSON.parse(bodyText);
      } catch {
        return undefined;
      }
    };
    const operation = paths.find((path) => path.pattern.test(apiPath))?.item[exchange.method.toLowerCase()] as
      | Json
      | undefined;
    if (!operation) {
      if (exchange.method === 'HEAD') return [];
      const violations: string[] = [];
      if (contentType !== 'application/problem+json')
        violations.push(
          `${where}: no documented operation, and the answer is not a problem (${contentType})`,
        );
      else if (!problem(parse()))
        violations.push(
          `${where}: problem body breaks the Problem schema: ${ajv.errorsText(problem.errors)}`,
        );
      return violations;
    }
    const responses = (operation.responses ?? {}) as Record<string, Json>;
    const documented =
      responses[String(exchange.status)] ?? responses[`${String(exchange.status)[0]}XX`] ?? responses.default;
    if (!documented) return [`${where}: status ${exchange.status} is not documented for this operation`];
    // A response shared by several operations is a `$ref` to `components/responses`.
    const response = resolve(document, documented);
    const violations: string[] = [];
    const documentedHeaders = Object.fromEntries(
      Object.entries((response.headers ?? {}) as Record<string, Json>).map(([name, header]) => [
        name.toLowerCase(),
        resolve(document, header),
      ]),
    );
    for (const [name, value] of Object.entries(headers)) {
      if (TRANSPORT_HEADERS.has(name)) continue;
      const header = documentedHeaders[name];
      if (!header) {
        violations.push(`${where}: header ${name} is not documented`);
        continue;
      }
      const schema = (header.schema ?? {}) as Json;
      const typed = schema.type === 'integer' && /^-?\d+$/.test(value) ? Number(value) : value;
      const validate = validatorFor(schema);
      if (!validate(typed))
        violations.push(
          `${where}: header ${name}=${value} breaks its schema: ${ajv.errorsText(validate.errors)}`,
        );
    }
    for (const [name, header] of Object.entries(documentedHeaders)) {
      if (header.required === true && headers[name] === undefined)
        violations.push(`${where}: required header ${name} is missing`);
    }
    if (exchange.method === 'HEAD') return violations;
    // A response documented without content (304 Not Modified) must come without a body.
    if (response.content === undefined)
      return bodyText === '' ? violations : [...violations, `${where}: a body where the document has none`];
    const content = response.content as Record<string, Json>;
    const media = content[contentType];
    if (!media)
      return [
        ...violations,
        `${where}: content type ${contentType || '(none)'} is not documented (${Object.keys(content).join(', ')})`,
      ];
    const validate = validatorFor((media.schema ?? {}) as Json);
    if (!validate(parse()))
      violations.push(`${where}: body breaks the schema: ${ajv.errorsText(validate.errors)}`);
    return violations;
  };
}

/**
 * The document with its response objects closed: the published document leaves them open so v1
 * can add fields, but our own server must send exactly the documented ones (an object that
 * states `additionalProperties` itself, like `signals`, keeps it).
 */
export function withClosedObjects(document: Json): Json {
  const components = (document.components ?? {}) as Json;
  const schemas = (components.schemas ?? {}) as Record<string, Json>;
  const closed = Object.fromEntries(
    Object.entries(schemas).map(([name, schema]) => [
      name,
      schema.properties !== undefined && schema.additionalProperties === undefined
        ? { ...schema, additionalProperties: false }
        : schema,
    ]),
  );
  return { ...document, components: { ...components, schemas: closed } };
}

/** Follows a local `$ref` of the document. */
function resolve(document: Json, value: Json): Json {
  if (typeof value.$ref !== 'string') return value;
  return value.$ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<Json>((node, key) => (node[key] ?? {}) as Json, document);
}
