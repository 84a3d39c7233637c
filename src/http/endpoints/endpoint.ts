/**
 * One declaration per endpoint: its method and path, its guards, and what the OpenAPI document says
 * of it. The routers mount it (mount.ts here), the document describes it (document.ts here), so
 * neither restates the other: a guard brings its refusals and security scheme to both.
 *
 * What the document says may depend on the configuration (limits, the prefix, the scopes): those
 * parts are functions of the document's context, called only when the document is built, so that
 * loading the routes costs no more than declaring them.
 */
import type { OpenAPIV3_1 } from 'openapi-types';
import type { RequestHandler } from 'express';
import type { z } from 'zod';
import type { AuthConfig } from '../../config/config.js';
import type { ErrorCode } from '../../errors.js';
import type { DocumentContext, Security } from '../openapi/operations.js';
import type { Response } from '../openapi/responses.js';
import type { GuardKit } from './guard-kit.js';

export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/** A value, or the value for the configuration the document describes. */
export type Described<T> = T | ((context: DocumentContext) => T);

/**
 * A check placed before an endpoint's handler: the middleware it mounts, the refusals it may give
 * (which the document lists on every endpoint it guards) and the credentials it asks for.
 */
export interface Guard {
  /** The middleware, from the guards the router was given. */
  use(kit: GuardKit): readonly RequestHandler[];
  /** What it may refuse, on a method that changes something (`unsafe`) or not. */
  refusals(config: AuthConfig, unsafe: boolean): readonly ErrorCode[];
  /** The credentials it takes; the first guard that says is the operation's security. */
  security?: Security;
}

export interface EndpointSpec {
  method: Method;
  /** Express's form, under the prefix: `/api/tokens/:id` (`/api/tokens/{id}` in the document). */
  path: string;
  operationId: string;
  summary: Described<string>;
  description?: Described<string>;
  tags: readonly string[];
  /** In order: the router mounts them before the handler, the document lists their refusals first. */
  guards?: readonly Guard[];
  /** When the guards' (or none) are not what the endpoint takes: a token refused, say. */
  security?: Security;
  /** Only a browser's form is served here (anything else goes on, to the 404 of paths nobody serves). */
  formsOnly?: boolean;
  parameters?: Described<OpenAPIV3_1.ParameterObject[]>;
  /** The body's schemas: as JSON, and as a form sends it when that differs (by default the same). */
  body?: Described<{ json: z.ZodType; form?: z.ZodType }>;
  /** The body as the document says it, when it is not a zod schema's (a form of the pages' own). */
  formBody?: Described<OpenAPIV3_1.SchemaObject | OpenAPIV3_1.ReferenceObject>;
  /** Success and redirects, by status. */
  responses: Described<Record<number, Response>>;
  /** The refusals the handler itself may give, besides the guards' and any endpoint's. */
  refusals?: Described<readonly ErrorCode[]>;
}

/** An endpoint's declaration: what the router mounts and the document describes. */
export interface Endpoint extends EndpointSpec {
  readonly guards: readonly Guard[];
  /** `{id}` for `:id`: the document's path. */
  readonly documentPath: string;
}

export function endpoint(spec: EndpointSpec): Endpoint {
  return { ...spec, guards: spec.guards ?? [], documentPath: spec.path.replace(/:(\w+)/g, '{$1}') };
}

/** The value for this document. */
export function described<T>(value: Described<T>, context: DocumentContext): T {
  return typeof value === 'function' ? (value as (context: DocumentContext) => T)(context) : value;
}
