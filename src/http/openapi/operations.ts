/**
 * What every operation of the document shares: the configuration it describes, the refusals any
 * endpoint may answer, the rate limits' notes, and the helpers of the declarations' parameters and
 * answers. The guards' refusals are the guards' own (endpoints/guards.ts).
 */
import type { OpenAPIV3_1 } from 'openapi-types';
import type { z } from 'zod';
import type { AuthConfig } from '../../config/config.js';
import type { Rate } from '../../config/rates.js';
import type { ErrorCode } from '../../errors.js';
import { SessionCookie } from '../../sessions/cookie.js';
import { MAX_PATH_SEGMENT } from '../requests/input.js';
import type { SchemaComponents } from './json-schema.js';
import { HEADERS, rateLimitHeaders, redirect, refusals, type Headers, type Response } from './responses.js';

export interface DocumentContext {
  config: AuthConfig;
  schemas: SchemaComponents;
  /** The scopes the application defines (`auth.defineScope`), for the token paths. */
  scopes: readonly { name: string; description: string }[];
}

export type Operation = OpenAPIV3_1.OperationObject;
export type Security = OpenAPIV3_1.SecurityRequirementObject[];

/**
 * A path's operations. openapi-types 12.1.3 intersects a 3.1 path item with a 3.0 one, so that no
 * 3.1 operation with a schema fits its own path item (kogosoftwarellc/open-api#910): this is the
 * one place that says it does.
 */
export function pathItem(operations: Operations): OpenAPIV3_1.PathItemObject {
  return operations as unknown as OpenAPIV3_1.PathItemObject;
}

/** A path's operations, by method. */
export type Operations = { [M in OpenAPIV3_1.HttpMethods]?: Operation };

/** Anyone: no credentials needed. */
export const PUBLIC: Security = [];

/**
 * Answered by any endpoint: a body or path that cannot be read, a body too large or too slow
 * (before any route), a failure, and storage out of reach (every request waits for it first).
 */
export const ANY_ENDPOINT: readonly ErrorCode[] = [
  'bad_request',
  'request_timeout',
  'payload_too_large',
  'internal_error',
  'unavailable',
];

export interface OperationSpec {
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  security: Security;
  parameters?: OpenAPIV3_1.ParameterObject[];
  /** The body's schemas: as JSON, and as a form sends it when that differs (by default the same). */
  body?: { json: z.ZodType; form?: z.ZodType };
  /** Success, redirects: by status. */
  responses: Record<number, Response>;
  /** The refusals besides ANY_ENDPOINT's. */
  refusals: readonly ErrorCode[];
}

export function operation({ schemas }: DocumentContext, spec: OperationSpec): Operation {
  const { body, responses, refusals: codes, ...rest } = spec;
  const answers: Record<string, Response> = {};
  for (const [status, response] of Object.entries(responses)) answers[status] = response;
  Object.assign(answers, refusals(schemas, [...codes, ...ANY_ENDPOINT]));
  const result: Operation = { ...rest, responses: answers };
  if (body) {
    result.requestBody = {
      required: true,
      content: {
        'application/json': { schema: schemas.of(body.json, 'input') },
        'application/x-www-form-urlencoded': { schema: schemas.of(body.form ?? body.json, 'input') },
      },
    };
  }
  return result;
}

/** Whether the configuration limits anything at all (SERVICE_AUTH_RATE_LIMIT_ENABLED). */
export function limited(config: AuthConfig): boolean {
  return config.rateLimit.enabled;
}

/** The RateLimit fields on the answers of an endpoint with its own limit. */
export function countedHeaders(config: AuthConfig): Headers {
  return limited(config) ? rateLimitHeaders() : {};
}

/** A limit's sentence for an endpoint's description. */
export function limitNote(config: AuthConfig, rate: Rate, what: string, key: string): string {
  if (!limited(config)) return 'No rate limit: SERVICE_AUTH_RATE_LIMIT_ENABLED is false.';
  return `Rate limit: ${rate.text} ${what} (${key}); past it, 429 \`rate_limited\` with Retry-After.`;
}

/** A browser's navigation without credentials goes to the login page, and comes back after. */
export function toLoginPage(config: AuthConfig): Response {
  return redirect(
    `A browser’s navigation without credentials: to \`${config.urlPrefix}/login?next=…\`, and ` +
      `back after logging in`,
  );
}

export function pathId(description: string): OpenAPIV3_1.ParameterObject {
  return {
    name: 'id',
    in: 'path',
    required: true,
    description,
    schema: { type: 'string', minLength: 1, maxLength: MAX_PATH_SEGMENT },
  };
}

export function queryParameter(
  name: string,
  description: string,
  schema: OpenAPIV3_1.ParameterObject['schema'] = { type: 'string' },
): OpenAPIV3_1.ParameterObject {
  return { name, in: 'query', required: false, description, schema };
}

/** `before` of the security log: a record id, as actions/security-log.ts reads it (1 to 15 digits). */
export function beforeParameter(description: string): OpenAPIV3_1.ParameterObject {
  return queryParameter('before', description, { type: 'integer', minimum: 1, maximum: 999_999_999_999_999 });
}

/** `Cache-Control: no-store`, which `/me` and everything under `/api/` answer with. */
export function noStore(): Headers {
  return { 'Cache-Control': HEADERS.noStore };
}

/** The session cookie's actual name, as the cookie is set: `__Host-` when it is Secure. */
export function sessionCookieName(config: AuthConfig): string {
  return new SessionCookie(config.sessions).name;
}

/** The session cookie's `Set-Cookie`, by its actual name. */
export function sessionCookieHeader({ config }: DocumentContext, description: string, required = true): Headers {
  const name = sessionCookieName(config);
  const pattern = `^${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}=`;
  return {
    'Set-Cookie': {
      description: `${description}: \`${name}\`, HttpOnly, SameSite=Lax, Path=/`,
      required,
      schema: { type: 'string', pattern },
    },
  };
}
