/**
 * The document's paths, from the declarations: each endpoint's operation, its refusals its guards'
 * then its own, its security the first guard's that takes credentials (or its own).
 */
import { operation, pathItem, PUBLIC, type DocumentContext, type Operations } from '../openapi/operations.js';
import type { OpenAPIV3_1 } from 'openapi-types';
import type { ErrorCode } from '../../errors.js';
import { described, type Endpoint } from './endpoint.js';

const UNSAFE = new Set(['post', 'put', 'patch', 'delete']);

export function describe(endpoint: Endpoint, context: DocumentContext): OpenAPIV3_1.OperationObject {
  const unsafe = UNSAFE.has(endpoint.method);
  const refusals: ErrorCode[] = endpoint.guards.flatMap((guard) => guard.refusals(context.config, unsafe));
  refusals.push(...described(endpoint.refusals ?? [], context));
  const security = endpoint.security ?? endpoint.guards.find((guard) => guard.security)?.security ?? PUBLIC;
  const description = endpoint.description === undefined ? undefined : described(endpoint.description, context);
  const parameters = endpoint.parameters === undefined ? undefined : described(endpoint.parameters, context);
  const body = endpoint.body === undefined ? undefined : described(endpoint.body, context);
  const result = operation(context, {
    operationId: endpoint.operationId,
    summary: described(endpoint.summary, context),
    ...(description === undefined ? {} : { description }),
    tags: [...endpoint.tags],
    security,
    ...(parameters === undefined ? {} : { parameters }),
    ...(body === undefined ? {} : { body }),
    responses: described(endpoint.responses, context),
    refusals,
  });
  if (endpoint.formBody !== undefined) {
    const schema = described(endpoint.formBody, context);
    result.requestBody = { required: true, content: { 'application/x-www-form-urlencoded': { schema } } };
  }
  return result;
}

/** Every declared endpoint's operation, by path and method (a path keeps the place of its first). */
export function documentPaths(table: readonly Endpoint[], context: DocumentContext): OpenAPIV3_1.PathsObject {
  const paths: Record<string, Operations> = {};
  for (const endpoint of table) {
    const item = (paths[endpoint.documentPath] ??= {});
    if (item[endpoint.method]) throw new Error(`${endpoint.method.toUpperCase()} ${endpoint.path} is declared twice`);
    item[endpoint.method] = describe(endpoint, context);
  }
  return Object.fromEntries(Object.entries(paths).map(([path, item]) => [path, pathItem(item)]));
}
