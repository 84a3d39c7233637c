/**
 * `GET /openapi.json`: the OpenAPI 3.1 description of this router (http/openapi.ts), built at the
 * first request (a ServiceAuth that is never asked pays nothing at start, not even loading the
 * modules that build it) and then sent as the same bytes every time; `no-cache` lets a client keep
 * it and revalidate (ETag).
 */
import { endpoint } from '../endpoints/endpoint.js';
import type { GuardKit } from '../endpoints/guard-kit.js';
import { EndpointRouter } from '../endpoints/mount.js';
import { openApiResponse } from '../schemas/responses.js';

/** Where the document is served, under the prefix. */
export const OPENAPI_PATH = '/openapi.json';

export const openApi = endpoint({
  method: 'get',
  path: OPENAPI_PATH,
  operationId: 'openApi',
  summary: 'This description',
  description: 'OpenAPI 3.1, for this configuration (prefix, cookie name, limits).',
  tags: ['meta'],
  responses: ({ schemas }) => ({
    200: {
      description: 'The OpenAPI document',
      headers: {
        'Cache-Control': {
          description: 'Revalidate before reuse',
          required: true,
          schema: { type: 'string', enum: ['no-cache'] },
        },
      },
      content: { 'application/json': { schema: schemas.of(openApiResponse, 'output') } },
    },
    304: { description: 'Not modified since the copy whose ETag the request sent (If-None-Match)' },
  }),
});

export function openApiApi(build: () => Promise<object>, kit: GuardKit): EndpointRouter {
  let body: string | undefined;
  return new EndpointRouter(kit).on(openApi, async (_req, res) => {
    body ??= JSON.stringify(await build());
    res.setHeader('Cache-Control', 'no-cache');
    res.type('application/json').send(body);
  });
}
