/**
 * The OpenAPI 3.1 description of the auth router, for one configuration (`GET <prefix>/openapi.json`):
 * every endpoint with its request bodies (the zod schemas they are validated with), its answers
 * (the response schemas of schemas/responses.ts) and every problem `code` it may answer. Built as
 * typed data, once per ServiceAuth; the test suites check every response they get against it.
 */
import { readFileSync } from 'node:fs';
import type { OpenAPIV3_1 } from 'openapi-types';
import type { AuthConfig } from '../config/config.js';
import { SchemaComponents } from './openapi/json-schema.js';
import { ANY_ENDPOINT, limited, sessionCookieName, type DocumentContext } from './openapi/operations.js';
import { refusals } from './openapi/responses.js';
import { documentPaths } from './endpoints/document.js';
import { ENDPOINTS } from './endpoint-table.js';

/** Extension at the document's root: what any other path or method under the prefix answers. */
export const UNKNOWN_PATHS = 'x-unknown-paths';

/** Extension at the document's root: the scopes the application defines, each with its description (`auth.defineScope`). */
export const SCOPES = 'x-scopes';

export type OpenApiDocument = OpenAPIV3_1.Document & {
  [UNKNOWN_PATHS]: { description: string; responses: OpenAPIV3_1.ResponsesObject };
  [SCOPES]: { name: string; description: string }[];
};

export function openApiDocument(
  config: AuthConfig,
  scopes: readonly { name: string; description: string }[] = [],
): OpenApiDocument {
  const schemas = new SchemaComponents();
  const context: DocumentContext = { config, schemas, scopes };
  // Every endpoint the routers serve, as declared (endpoint-table.ts).
  const paths = documentPaths(ENDPOINTS, context);
  return {
    openapi: '3.1.0',
    info: {
      title: 'service-auth',
      version: packageVersion(),
      summary: 'Accounts, sessions, personal access tokens and authorization rules',
      description: [
        'Programs send JSON and get JSON, or RFC 9457 problem details (`application/problem+json`) with a stable `code`.',
        'A browser’s navigation, or a form sent from one of the built-in pages (urlencoded, ' +
          'preferring HTML), gets pages instead: the same URLs, the same statuses. Those pages are ' +
          'described under each response’s `x-browser-content`, not its `content`, so that a client ' +
          'generated from this document sees JSON.',
        'Every answer carries `X-Content-Type-Options: nosniff`.',
        limited(config) ? '' : 'Rate limits are off (SERVICE_AUTH_RATE_LIMIT_ENABLED is false).',
      ]
        .filter(Boolean)
        .join(' '),
      license: { name: 'MIT', identifier: 'MIT' },
    },
    jsonSchemaDialect: 'https://json-schema.org/draft/2020-12/schema',
    servers: [{ url: config.urlPrefix, description: 'SERVICE_AUTH_URL_PREFIX, on this application' }],
    tags: [
      {
        name: 'account',
        description:
          'Registering, logging in and out, password resets, the account’s own password, address, ' +
          'sessions and deletion',
      },
      { name: 'tokens', description: 'Personal access tokens, for `Authorization: Bearer`' },
      { name: 'authorization', description: 'What the user may do' },
      { name: 'organizations', description: 'Organizations (tenants), their members and roles there, and invitations' },
      { name: 'sso', description: 'Signing in through identity providers, and the identities linked to the account' },
      { name: 'pages', description: 'HTML pages for people with browsers' },
      { name: 'admin', description: 'The admin console: HTML pages for operators, by their rules (docs/admin.md)' },
      { name: 'meta', description: 'This description' },
    ],
    paths,
    components: {
      schemas: schemas.schemas,
      securitySchemes: {
        session: {
          type: 'apiKey',
          in: 'cookie',
          name: sessionCookieName(config),
          description:
            `The session cookie that logging in sets (HttpOnly, ` +
            `SameSite=Lax${config.sessions.secure ? ', Secure' : ''}). Unsafe methods with it must come ` +
            `from this site.`,
        },
        bearer: {
          type: 'http',
          scheme: 'bearer',
          description: `A personal access token, \`${config.tokens.prefix}_<id>_<secret>\`, from \`POST /api/tokens\``,
        },
      },
    },
    [UNKNOWN_PATHS]: {
      description: 'Any other path or method under the prefix',
      responses: refusals(schemas, ['not_found', ...ANY_ENDPOINT]),
    },
    [SCOPES]: scopes.map(({ name, description }) => ({ name, description })),
  };
}

/** The package's version: package.json is two levels up from src/http/, three from dist/src/http/. */
function packageVersion(): string {
  for (const up of ['../../package.json', '../../../package.json']) {
    try {
      const manifest = JSON.parse(readFileSync(new URL(up, import.meta.url), 'utf8')) as {
        name?: unknown;
        version?: unknown;
      };
      if (manifest.name === 'service-auth' && typeof manifest.version === 'string') return manifest.version;
    } catch {
      // not here
    }
  }
  return '0.0.0';
}
