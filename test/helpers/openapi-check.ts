/**
 * Every response a test receives through supertest from a path under a ServiceAuth's prefix is
 * checked against that ServiceAuth's OpenAPI document (src/http/openapi.ts): the status must be
 * one the document lists for the path and method (or, for any other path or method, one of its
 * `x-unknown-paths` answers), the content type one it lists for that status (`content`, or a page's
 * `x-browser-content`), the body valid
 * against that content's schema (Ajv, JSON Schema 2020-12, with formats), and the headers it marks
 * required present and of the documented form. A mismatch fails the test, naming method, path,
 * status and what did not match, so that the document cannot drift from the code.
 *
 * A mocha root hook plugin (.mocharc.json `require`): no test opts in. Responses to an
 * application's own routes (outside the prefix), and to requests sent to a URL rather than an
 * app, are not checked.
 */
import type { Server } from 'node:http';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import formats from 'ajv-formats';
import type { OpenAPIV3_1 } from 'openapi-types';
import request from 'supertest';
import { openApiDocument, UNKNOWN_PATHS, type OpenApiDocument } from '../../src/http/openapi.js';
import { BROWSER_CONTENT, type Response } from '../../src/http/openapi/responses.js';
import { ServiceAuth } from '../../src/index.js';
import type { AuthConfig } from '../../src/config/config.js';

/** What the check reads of a response. */
export interface CheckedResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text?: string | undefined;
}

const DOCUMENT_ID = 'urn:service-auth:openapi';
const METHODS = new Set(['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace']);

/** A documented set of answers: an operation's, or those of any other path. */
interface Answers {
  pointer: string;
  responses: OpenAPIV3_1.ResponsesObject;
  label: string;
}

/** One document, its paths as patterns, and its schemas compiled on first use. */
export class OpenApiCheck {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: true });
  private readonly validators = new Map<string, ValidateFunction>();
  private readonly paths: { template: string; pattern: RegExp }[];

  constructor(readonly document: OpenApiDocument) {
    formats.default(this.ajv);
    this.ajv.addSchema({ ...document, $id: DOCUMENT_ID });
    this.paths = Object.keys(document.paths ?? {}).map((template) => ({
      template,
      // Express matches paths case-insensitively, with or without trailing slashes; a parameter is one segment.
      pattern: new RegExp(`^${template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{[^}]+\}/g, '[^/]+')}/*$`, 'i'),
    }));
  }

  /**
   * What does not match in a response to `method` on `path` (the request's path, with the prefix),
   * as one message; undefined when it all matches, or when the path is not under the prefix.
   */
  check(method: string, path: string, response: CheckedResponse): string | undefined {
    const prefix = this.prefix();
    const inside =
      path.toLowerCase() === prefix.toLowerCase() || path.toLowerCase().startsWith(`${prefix.toLowerCase()}/`);
    if (!inside) return undefined;
    const where = `${method.toUpperCase()} ${path} answered ${response.status}`;
    const problems = this.problems(method.toLowerCase(), path.slice(prefix.length) || '/', response);
    return problems.length
      ? `OpenAPI check: ${where}, which the document does not allow:\n  - ${problems.join('\n  - ')}`
      : undefined;
  }

  private prefix(): string {
    return this.document.servers?.[0]?.url ?? '';
  }

  /**
   * The problems against the documented operation. A path with more than one trailing slash is
   * taken by some of Express's routes and not by others: the answers of any other path pass too.
   */
  private problems(method: string, relative: string, response: CheckedResponse): string[] {
    const matched = this.operationOf(method, relative);
    const found = this.problemsWith(matched, method, response);
    if (found.length === 0 || !/\/\/$/.test(relative) || matched.pointer === this.unknown.pointer) return found;
    return this.problemsWith(this.unknown, method, response).length === 0 ? [] : found;
  }

  private problemsWith({ pointer, responses, label }: Answers, method: string, response: CheckedResponse): string[] {
    const status = String(response.status);
    const key =
      status in responses
        ? status
        : `${status[0]}XX` in responses
          ? `${status[0]}XX`
          : 'default' in responses
            ? 'default'
            : undefined;
    if (!key)
      return [`status ${status} is not documented for ${label} (it lists ${Object.keys(responses).join(', ')})`];
    const documented = responses[key] as OpenAPIV3_1.ResponseObject;
    const at = `${pointer}/${escape(key)}`;
    return [...this.bodyProblems(method, at, documented, response), ...this.headerProblems(documented, response)];
  }

  /** The answers of any other path or method under the prefix. */
  private get unknown(): Answers {
    return {
      pointer: `#/${UNKNOWN_PATHS}/responses`,
      responses: this.document[UNKNOWN_PATHS].responses,
      label: 'a path or method the document does not describe',
    };
  }

  /**
   * Whether `method` on `path` (with the prefix) is a page's own URL: a documented `GET` of the
   * `pages` tag whose 200 is HTML. What it serves is the page, whatever Accept says.
   */
  isPage(method: string, path: string): boolean {
    const verb = method.toLowerCase();
    if (verb !== 'get' && verb !== 'head') return false;
    const found = this.find(verb, path.slice(this.prefix().length) || '/');
    const ok = found?.operation.responses?.['200'] as OpenAPIV3_1.ResponseObject | undefined;
    return Boolean(found?.operation.tags?.includes('pages') && ok?.content?.['text/html']);
  }

  /** The documented operation for the request, or the answers of any other path. */
  private operationOf(method: string, relative: string): Answers {
    const found = this.find(method, relative);
    const responses = found?.operation.responses;
    if (found && responses) {
      const { template, verb } = found;
      return {
        pointer: `#/paths/${escape(template)}/${verb}/responses`,
        responses,
        label: `${verb.toUpperCase()} ${template}`,
      };
    }
    return this.unknown;
  }

  /** The path template and operation a request (path without the prefix) meets, if documented. */
  private find(
    method: string,
    relative: string,
  ): { template: string; verb: string; operation: OpenAPIV3_1.OperationObject } | undefined {
    const path = this.paths.find(({ pattern }) => pattern.test(relative));
    const item = path
      ? (this.document.paths?.[path.template] as Record<string, OpenAPIV3_1.OperationObject | undefined>)
      : undefined;
    const verb = method === 'head' && item && !item['head'] ? 'get' : method;
    const operation = METHODS.has(verb) ? item?.[verb] : undefined;
    return path && operation ? { template: path.template, verb, operation } : undefined;
  }

  private bodyProblems(
    method: string,
    at: string,
    documented: OpenAPIV3_1.ResponseObject,
    response: CheckedResponse,
  ): string[] {
    const header = response.headers['content-type'];
    const type = typeof header === 'string' ? header.split(';')[0]!.trim().toLowerCase() : undefined;
    const text = response.text ?? '';
    const browser = (documented as Response)[BROWSER_CONTENT] ?? {};
    const types = [...Object.keys(documented.content ?? {}), ...Object.keys(browser)];
    if (types.length === 0) {
      if (type !== undefined || text !== '')
        return [
          `the document says there is no body, but there is one (${type ?? 'no Content-Type'}: ${excerpt(text)})`,
        ];
      return [];
    }
    if (type === undefined || !types.includes(type))
      return [`Content-Type ${type ?? '(none)'} is not one of ${types.join(', ')}`];
    if (method === 'head') return [];
    let body: unknown = text;
    if (/^application\/(.+\+)?json$/.test(type)) {
      try {
        body = JSON.parse(text);
      } catch {
        return [`the body is not JSON: ${excerpt(text)}`];
      }
    }
    const validate = this.validator(`${at}/${type in browser ? BROWSER_CONTENT : 'content'}/${escape(type)}/schema`);
    if (validate(body)) return [];
    return [
      `the ${type} body does not match its schema: ${this.ajv.errorsText(validate.errors, { dataVar: 'body' })}; the body: ${excerpt(text)}`,
    ];
  }

  private headerProblems(documented: OpenAPIV3_1.ResponseObject, response: CheckedResponse): string[] {
    const problems: string[] = [];
    for (const [name, header] of Object.entries(documented.headers ?? {}) as [string, OpenAPIV3_1.HeaderObject][]) {
      const value = response.headers[name.toLowerCase()];
      if (value === undefined) {
        if (header.required) problems.push(`the header ${name} is missing`);
        continue;
      }
      const check = header.schema ? this.ajv.compile(header.schema) : undefined;
      for (const one of Array.isArray(value) ? value : [value]) {
        if (check && !check(one))
          problems.push(`the header ${name}: ${JSON.stringify(one)} does not match ${JSON.stringify(header.schema)}`);
      }
    }
    return problems;
  }

  private validator(pointer: string): ValidateFunction {
    let validate = this.validators.get(pointer);
    if (!validate) {
      validate = this.ajv.getSchema(`${DOCUMENT_ID}${pointer}`);
      if (!validate) throw new Error(`no schema at ${pointer}`);
      this.validators.set(pointer, validate);
    }
    return validate;
  }
}

/** A JSON pointer's segment, in a URI fragment. */
function escape(segment: string): string {
  return encodeURIComponent(segment.replace(/~/g, '~0').replace(/\//g, '~1'));
}

function excerpt(text: string): string {
  return JSON.stringify(text.length > 400 ? `${text.slice(0, 400)}…` : text);
}

/**
 * One check per document: the document depends on a few of the configuration's values (the
 * prefix, which features are on), and a test app's configuration differs from the next one's in
 * others (its database file, its outbox). So each check remembers the values its document was built
 * from, recorded as it was built, and serves every configuration that has the same ones: the
 * builder would read the same values and make the same document. Building a document and compiling
 * its schemas cost 50 ms or so; apps are made by the hundred.
 */
const checks: { read: Map<string, unknown>; check: OpenApiCheck }[] = [];

export function openApiCheckFor(config: AuthConfig): OpenApiCheck {
  const found = checks.find(({ read }) => [...read].every(([path, value]) => Object.is(valueAt(config, path), value)));
  if (found) return found.check;
  const read = new Map<string, unknown>();
  const check = new OpenApiCheck(openApiDocument(recording(config, read)));
  checks.push({ read, check });
  return check;
}

/** `target` as seen through a proxy that notes every leaf value read of it, by its path. */
function recording<T extends object>(target: T, read: Map<string, unknown>, path = ''): T {
  return new Proxy(target, {
    get(object, key, receiver) {
      const value: unknown = Reflect.get(object, key, receiver);
      if (typeof key === 'symbol' || typeof value === 'function') return value;
      const at = `${path}/${key}`;
      if (value !== null && typeof value === 'object') {
        read.set(at, '(object)'); // read further through the proxy; its kind is noted too
        return recording(value, read, at);
      }
      read.set(at, value);
      return value;
    },
    ownKeys(object) {
      // Enumerating keys (Object.entries, a spread) reads them all: noted as the list of keys.
      read.set(`${path}/(keys)`, Reflect.ownKeys(object).join('\0'));
      return Reflect.ownKeys(object);
    },
  });
}

/** The value at a recorded path, in the same terms as recorded. */
function valueAt(config: unknown, path: string): unknown {
  let value: unknown = config;
  const segments = path.split('/').slice(1);
  for (const [index, segment] of segments.entries()) {
    if (value === null || typeof value !== 'object') return undefined;
    if (segment === '(keys)' && index === segments.length - 1) return Reflect.ownKeys(value).join('\0');
    value = (value as Record<string, unknown>)[segment];
  }
  return value !== null && typeof value === 'object' ? '(object)' : value;
}

/** The ServiceAuth mounted on the Express application behind a supertest target, if any. */
function serviceAuthOf(target: unknown): ServiceAuth | undefined {
  if (typeof target === 'string' || !target || typeof (target as Server).listeners !== 'function') return undefined;
  const app = (target as Server).listeners('request')[0];
  return app ? ServiceAuth.of(app) : undefined;
}

interface SupertestInternals {
  app: unknown;
  method: string;
  url: string;
  assert(resError: unknown, res: CheckedResponse | undefined, fn?: (error: unknown, res: unknown) => void): void;
}

const Test = request.Test.prototype as unknown as SupertestInternals;
const originalAssert = Test.assert;

/** Responses from apps with a ServiceAuth, and the time their checks took (OPENAPI_CHECK_STATS=1 prints them after the run). */
export const stats = { responses: 0, ms: 0 };

/** The check, run after the test's own expectations (which report first when they fail). */
function checkedAssert(
  this: SupertestInternals,
  resError: unknown,
  res: CheckedResponse | undefined,
  fn?: (error: unknown, res: unknown) => void,
): void {
  originalAssert.call(this, resError, res, (error, response) => {
    const started = performance.now();
    const auth = error || !res ? undefined : serviceAuthOf(this.app);
    const problem = auth
      ? openApiCheckFor(auth.config).check(this.method, new URL(this.url).pathname, res!)
      : undefined;
    if (auth) stats.responses++;
    stats.ms += performance.now() - started;
    fn?.call(this, error ?? (problem ? new Error(problem) : null), response);
  });
}

/** Installs the check on every supertest request (`false` takes it off); returns whether it was on. */
export function checkResponses(on = true): boolean {
  const was = Test.assert === checkedAssert;
  Test.assert = on ? checkedAssert : originalAssert;
  return was;
}

export const mochaHooks = {
  beforeAll(): void {
    checkResponses(true);
  },
  afterAll(): void {
    if (process.env['OPENAPI_CHECK_STATS'])
      console.log(
        `  (OpenAPI check: ${stats.responses} responses, ${Math.round(stats.ms)} ms, ${checks.length} documents)`,
      );
  },
};
