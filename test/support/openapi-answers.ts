// Every /api/v1 answer the sandbox's tests receive through their harness (test/sandbox/helpers.ts,
// `api()`), and every delivery their receivers get (`startReceiver`), is checked here against the OpenAPI document the sandbox serves (sandbox.md: "the
// sandbox's answers validate against it, checked answer by answer in the tests"): the status
// must be declared for the operation, the media type too, and the body must validate (Ajv,
// JSON Schema 2020-12, `format` checked too: date-time and uri by ajv-formats).
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { openApiDocument } from '../../src/sandbox/openapi.js';

export const BASE_ID = 'https://sandbox.rfs.invalid/openapi.json';

/**
 * An Ajv for the document, `format` asserted (date-time, uri): without the formats Ajv ignores
 * them with a warning, and an answer whose `createdAt` is no date would pass.
 */
export function openApiAjv(doc: object): Ajv2020 {
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  addFormats(ajv);
  ajv.addSchema({ ...doc, $id: BASE_ID });
  return ajv;
}

const pointer = (...parts: string[]): string => parts.map((p) => p.replaceAll('~', '~0').replaceAll('/', '~1')).join('/');

// biome-ignore lint/suspicious/noExplicitAny: the document is read field by field
type Doc = any;

interface Compiled {
  doc: Doc;
  ajv: Ajv2020;
  routes: { method: string; template: string; pattern: RegExp }[];
  validators: Map<string, ValidateFunction>;
}

let compiled: Compiled | null = null;

function load(): Compiled {
  if (compiled) return compiled;
  const doc: Doc = structuredClone(openApiDocument());
  const ajv = openApiAjv(doc);
  const routes: Compiled['routes'] = [];
  for (const [template, item] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    for (const method of Object.keys(item)) routes.push({ method: method.toUpperCase(), template, pattern });
  }
  // Literal paths before templated ones: /webhooks/deliveries is not /webhooks/{id}.
  routes.sort((a, b) => Number(a.template.includes('{')) - Number(b.template.includes('{')));
  compiled = { doc, ajv, routes, validators: new Map() };
  return compiled;
}

function validator(ref: string): ValidateFunction {
  const { ajv, validators } = load();
  let validate = validators.get(ref);
  if (!validate) {
    validate = ajv.compile({ $ref: ref });
    validators.set(ref, validate);
  }
  return validate;
}

/**
 * Compiles every schema of the document at once, before a test starts its sandbox: a first
 * compile inside a timed sequence of requests (a rate-limit test) would change what it measures.
 */
export function prepareAnswerChecks(): void {
  const { doc } = load();
  const media = (response: Doc, at: string) => {
    for (const type of Object.keys(response.content ?? {})) validator(`${BASE_ID}${at}/${pointer('content', type, 'schema')}`);
  };
  for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, Doc>>)) {
    for (const [method, operation] of Object.entries(item)) {
      for (const [status, response] of Object.entries(operation.responses as Record<string, Doc>)) {
        if (!response.$ref) media(response, `#/${pointer('paths', path, method, 'responses', status)}`);
      }
    }
  }
  for (const [name, response] of Object.entries(doc.components.responses as Record<string, Doc>)) {
    media(response, `#/${pointer('components', 'responses', name)}`);
  }
  validator(PAYLOAD_REF);
}

const PAYLOAD_REF = `${BASE_ID}#/${pointer('webhooks', 'recording.completed', 'post', 'requestBody', 'content', 'application/json', 'schema')}`;

/** How many answers were checked, per operation and status: for the test that says the check ran. */
export const checkedAnswers = new Map<string, number>();

/**
 * Checks one answer of the sandbox against its document. `path` is below /api/v1, with or
 * without a query. Answers to paths or methods the document does not describe (an unknown path,
 * HEAD) are not operations of it and pass unchecked.
 */
export function checkAnswer(method: string, path: string, status: number, contentType: string | null, text: string): void {
  const { doc, ajv, routes } = load();
  const bare = (path.split('?')[0] ?? '').replace(/\/+$/, '') || '/';
  const route = routes.find((r) => r.method === method.toUpperCase() && r.pattern.test(bare));
  if (!route) return;
  const operation = doc.paths[route.template][route.method.toLowerCase()];
  let response = operation.responses[String(status)];
  const where = `${route.method} ${route.template} ${status}`;
  if (!response) throw new Error(`the OpenAPI document declares no ${status} for ${route.method} ${route.template} (answered to ${path})`);
  let at = `#/${pointer('paths', route.template, route.method.toLowerCase(), 'responses', String(status))}`;
  if (response.$ref) {
    at = response.$ref;
    response = doc.components.responses[response.$ref.split('/').pop()];
  }
  if (!response.content) {
    if (text !== '') throw new Error(`${where}: the document declares no body, the sandbox sent ${text.slice(0, 200)}`);
  } else {
    const mediaType = (contentType ?? '').split(';')[0]?.trim() ?? '';
    if (!(mediaType in response.content)) throw new Error(`${where}: media type ${mediaType} is not declared`);
    const validate = validator(`${BASE_ID}${at}/${pointer('content', mediaType, 'schema')}`);
    if (!validate(JSON.parse(text))) {
      throw new Error(
        `${where}: the answer does not match the OpenAPI document: ${ajv.errorsText(validate.errors)}\n${text.slice(0, 500)}`,
      );
    }
  }
  checkedAnswers.set(where, (checkedAnswers.get(where) ?? 0) + 1);
}

/** Checks the body of a delivery against the document's `recording.completed` webhook. */
export function checkPayload(text: string): void {
  const { ajv } = load();
  const validate = validator(PAYLOAD_REF);
  if (!validate(JSON.parse(text))) {
    throw new Error(`a delivery does not match the OpenAPI document's webhook: ${ajv.errorsText(validate.errors)}\n${text.slice(0, 500)}`);
  }
  checkedAnswers.set('webhook recording.completed', (checkedAnswers.get('webhook recording.completed') ?? 0) + 1);
}
