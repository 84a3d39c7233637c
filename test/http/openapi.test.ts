import { Validator } from '@seriousme/openapi-schema-validator';
import { expect } from 'chai';
import express from 'express';
import type { OpenAPIV3_1 } from 'openapi-types';
import request from 'supertest';
import { readConfig } from '../../src/config/read-config.js';
import { sourceFrom } from '../../src/config/source.js';
import { openApiDocument, type OpenApiDocument } from '../../src/http/openapi.js';
import { ERROR_CODES } from '../../src/errors.js';
import { ServiceAuth } from '../../src/index.js';
import { captureLogger, createTestApp, type TestApp } from '../helpers/app.js';
import { checkResponses, openApiCheckFor } from '../helpers/openapi-check.js';

type Operation = OpenAPIV3_1.OperationObject;
type Schema = Record<string, unknown>;

interface RouterLike {
  stack: { rawPath?: unknown; route?: { path: string; methods: Record<string, boolean> }; handle: unknown }[];
}

/** `METHOD path` of every route a router (and the routers mounted in it) has, paths in OpenAPI's form. */
function routesOf(router: RouterLike, base = ''): string[] {
  return router.stack.flatMap((layer) => {
    if (layer.route) {
      const path = `${base}${layer.route.path}`.replace(/:(\w+)/g, '{$1}').replace(/(.)\/$/, '$1');
      return Object.keys(layer.route.methods).map((method) => `${method.toUpperCase()} ${path}`);
    }
    const nested = layer.handle as Partial<RouterLike>;
    if (!nested.stack) return [];
    return routesOf(
      nested as RouterLike,
      typeof layer.rawPath === 'string' && layer.rawPath !== '/' ? `${base}${layer.rawPath}` : base,
    );
  });
}

function operationsOf(document: OpenApiDocument): string[] {
  return Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    Object.keys(item ?? {}).map((method) => `${method.toUpperCase()} ${path}`),
  );
}

function operation(document: OpenApiDocument, path: string, method: string): Operation {
  return (document.paths?.[path] as Record<string, Operation>)[method]!;
}

/** The `code` values a response's problem details may carry. */
function codes(document: OpenApiDocument, path: string, method: string, status: number): string[] {
  const response = operation(document, path, method).responses![String(status)] as OpenAPIV3_1.ResponseObject;
  const schema = response.content!['application/problem+json']!.schema as { properties: { code: { enum: string[] } } };
  return schema.properties.code.enum;
}

function component(document: OpenApiDocument, name: string): Schema {
  return document.components!.schemas![name] as Schema;
}

function property(schema: Schema, name: string): Schema {
  return (schema['properties'] as Record<string, Schema>)[name]!;
}

describe('GET /service-auth/openapi.json', () => {
  let t: TestApp;
  let served: OpenApiDocument;
  before(async () => {
    t = await createTestApp();
    const response = await request(t.app).get('/service-auth/openapi.json').expect(200);
    expect(response.headers['content-type']).to.match(/^application\/json/);
    expect(response.headers['cache-control']).to.equal('no-cache');
    served = response.body;
  });
  after(() => t.auth.close());

  it('is a valid OpenAPI 3.1 document, the one the builder makes for this configuration', async () => {
    const validator = new Validator();
    const result = await validator.validate(served as unknown as Parameters<Validator['validate']>[0]);
    expect(result.errors, JSON.stringify(result.errors, null, 2)).to.equal(undefined);
    expect(result.valid).to.equal(true);
    expect(validator.version).to.equal('3.1');
    expect(served).to.deep.equal(JSON.parse(JSON.stringify(openApiDocument(t.auth.config))));
  });

  it('answers a client that has the current copy with 304 Not Modified (ETag)', async () => {
    const first = await request(t.app).get('/service-auth/openapi.json').expect(200);
    const again = await request(t.app)
      .get('/service-auth/openapi.json')
      .set('If-None-Match', first.headers['etag']!)
      .expect(304);
    expect(again.text).to.equal('');
  });

  it("lists every route of the auth router, and nothing else (compared with the router's own stack)", () => {
    const mounted = (t.app as unknown as { router: RouterLike }).router.stack.find(
      (layer) => layer.rawPath === '/service-auth' && (layer.handle as Partial<RouterLike>).stack,
    );
    const routes = routesOf(mounted!.handle as RouterLike);
    expect(routes.length).to.be.above(15);
    expect([...new Set(operationsOf(served))].sort()).to.deep.equal([...new Set(routes)].sort());
  });

  it('says which problem codes each endpoint answers, with which status', () => {
    expect(codes(served, '/register', 'post', 422)).to.deep.equal(['invalid_email', 'password_rules']);
    expect(codes(served, '/register', 'post', 409)).to.deep.equal(['email_taken']);
    expect(codes(served, '/login', 'post', 401)).to.deep.equal(['invalid_credentials', 'mfa_required']);
    expect(codes(served, '/login/mfa', 'post', 401)).to.deep.equal(['invalid_code', 'invalid_ticket']);
    expect(codes(served, '/api/tokens', 'post', 403)).to.have.members([
      'csrf_rejected',
      'session_required',
      'impersonation_forbidden',
    ]);
    expect(codes(served, '/api/tokens', 'post', 409)).to.deep.equal(['token_limit']);
    expect(codes(served, '/api/tokens/{id}', 'delete', 404)).to.deep.equal(['not_found']);
    expect(codes(served, '/me', 'get', 401)).to.have.members(['unauthenticated', 'invalid_token']);
    for (const [path, item] of Object.entries(served.paths ?? {})) {
      for (const method of Object.keys(item ?? {})) {
        expect(codes(served, path, method, 500), `${method} ${path}`).to.deep.equal(['internal_error']);
        // Every endpoint may be unavailable; those whose ability names user attributes, also for want of them.
        expect(codes(served, path, method, 503), `${method} ${path}`).to.include('unavailable');
        expect(['unavailable', 'attributes_unavailable'], `${method} ${path}`).to.include.members(
          codes(served, path, method, 503),
        );
        for (const status of Object.keys(operation(served, path, method).responses!).filter((s) => Number(s) >= 400)) {
          for (const code of codes(served, path, method, Number(status))) expect(ERROR_CODES).to.include(code);
        }
      }
    }
    const unlimited = openApiDocument({ ...t.auth.config, rateLimit: { ...t.auth.config.rateLimit, enabled: false } });
    expect(codes(served, '/login', 'post', 429)).to.deep.equal(['rate_limited']);
    expect(operation(unlimited, '/login', 'post').responses).not.to.have.property('429');
  });

  it('describes both security schemes, with the session cookie by its actual name', () => {
    expect(served.components!.securitySchemes).to.deep.include({
      bearer: {
        type: 'http',
        scheme: 'bearer',
        description: served.components!.securitySchemes!['bearer']!.description,
      },
    });
    expect(served.components!.securitySchemes!['session']).to.include({
      type: 'apiKey',
      in: 'cookie',
      name: 'service_auth_session',
    });
    expect(operation(served, '/api/tokens', 'post').security).to.deep.equal([{ session: [] }]);
    expect(operation(served, '/me', 'get').security).to.deep.equal([{ session: [] }, { bearer: [] }]);
    expect(operation(served, '/login', 'post').security).to.deep.equal([]);
  });
});

describe('the OpenAPI document for another configuration', () => {
  let t: TestApp;
  let document: OpenApiDocument;
  before(async () => {
    t = await createTestApp({
      SERVICE_AUTH_URL_PREFIX: '/auth',
      SERVICE_AUTH_MIN_PASSWORD_LENGTH: 16,
      SERVICE_AUTH_MAX_PASSWORD_LENGTH: 64,
      SERVICE_AUTH_TOKEN_MAX_EXPIRY_DAYS: 30,
      SERVICE_AUTH_SESSION_COOKIE: 'sid',
      SERVICE_AUTH_SESSION_COOKIE_SECURE: true,
      SERVICE_AUTH_RATE_LIMIT_LOGIN: '7 per hour',
    });
    document = (await request(t.app).get('/auth/openapi.json').expect(200)).body;
  });
  after(() => t.auth.close());

  it('carries the limits the bodies are validated with', () => {
    for (const name of ['RegisterRequest', 'ResetRequest']) {
      expect(property(component(document, name), 'password'), name).to.include({ minLength: 16, maxLength: 64 });
    }
    const days = property(component(document, 'NewTokenRequest'), 'expires_in_days') as { anyOf: Schema[] };
    expect(days.anyOf[0]).to.include({ type: 'integer', minimum: 1, maximum: 30 });
    expect(property(component(document, 'NewTokenRequest'), 'name')).to.include({ minLength: 1, maxLength: 100 });
    expect(
      (property(component(document, 'NewTokenRequest'), 'scopes') as { anyOf: { items: Schema }[] }).anyOf[0]!.items,
    ).to.include({ pattern: '^[a-z0-9:._-]{1,64}$' });
    expect(property(component(document, 'NewTokenForm'), 'expires_in_days')).to.include({ type: 'string' });
  });

  it('names the prefix, the secure cookie and the rate limits', () => {
    expect(document.servers).to.deep.equal([
      { url: '/auth', description: 'SERVICE_AUTH_URL_PREFIX, on this application' },
    ]);
    expect(document.components!.securitySchemes!['session']).to.include({ name: '__Host-sid' });
    expect(operation(document, '/login', 'post').description).to.contain('7 per hour');
  });
});

describe('the OpenAPI check every test response goes through', () => {
  // The defaults, whatever the environment says.
  const check = () => openApiCheckFor(readConfig(sourceFrom(undefined, {})));
  // Installed by .mocharc.json for every suite; here also when this file runs without it.
  let wasOn = true;
  before(() => (wasOn = checkResponses(true)));
  after(() => checkResponses(wasOn));
  const problem = (status: number, code: string) => ({
    status,
    headers: {
      'content-type': 'application/problem+json; charset=utf-8',
      'cache-control': 'no-store',
      'www-authenticate': 'Bearer realm="service-auth"',
    },
    text: JSON.stringify({ type: 'about:blank', title: 'x', status, detail: 'x', code }),
  });

  it("refuses an answer of the app's own under the prefix that breaks the documented shape, naming method, path and status", async () => {
    const app = express();
    app.set('SERVICE_AUTH_DATABASE_URL', 'sqlite::memory:');
    // Mounted before ServiceAuth, so that it answers in place of the router's GET /me.
    app.get('/service-auth/me', (_req, res) => res.json({ user: { id: 'one', email: 'ada@example.com' } }));
    app.get('/elsewhere', (_req, res) => res.status(418).json({ anything: true }));
    const auth = new ServiceAuth(app);
    auth.logger = captureLogger();
    try {
      await auth.ready;
      const refusal = await request(app)
        .get('/service-auth/me')
        .then(
          () => undefined,
          (error: Error) => error,
        );
      expect(refusal?.message).to.match(/^OpenAPI check: GET \/service-auth\/me answered 200/);
      expect(refusal?.message)
        .to.contain('does not match its schema')
        .and.contain('body/user/id must be integer')
        .and.contain('Cache-Control is missing');
      // Outside the prefix: the application's own business, not checked.
      await request(app).get('/elsewhere').expect(418);
    } finally {
      await auth.close();
    }
  });

  it('refuses a code, a status, a content type or a header the document does not list for the endpoint', () => {
    expect(check().check('POST', '/service-auth/login', problem(401, 'invalid_credentials'))).to.equal(undefined);
    expect(check().check('POST', '/service-auth/login', problem(401, 'invalid_token'))).to.match(
      /POST \/service-auth\/login answered 401[^]*\/code must be equal to one of the allowed values/,
    );
    expect(check().check('POST', '/service-auth/login', problem(418, 'bad_request'))).to.contain(
      'status 418 is not documented for POST /login',
    );
    expect(
      check().check('POST', '/service-auth/login', {
        ...problem(401, 'invalid_credentials'),
        headers: {
          'content-type': 'application/json',
          'cache-control': 'no-store',
          'www-authenticate': 'Bearer realm="service-auth"',
        },
      }),
    ).to.contain('Content-Type application/json is not one of application/problem+json, text/html');
    expect(
      check().check('POST', '/service-auth/login', {
        ...problem(401, 'invalid_credentials'),
        headers: { 'content-type': 'application/problem+json' },
      }),
    ).to.contain('the header WWW-Authenticate is missing');
    expect(
      check().check('DELETE', '/service-auth/api/tokens/abc', {
        status: 204,
        headers: { 'cache-control': 'no-store', 'content-type': 'application/json' },
        text: '{}',
      }),
    ).to.contain('there is no body');
    expect(check().check('GET', '/service-auth/nowhere', problem(404, 'not_found'))).to.equal(undefined);
    expect(check().check('GET', '/service-auth/nowhere', { status: 200, headers: {}, text: '' })).to.contain(
      'status 200 is not documented for a path or method the document does not describe',
    );
    expect(check().check('GET', '/elsewhere', { status: 200, headers: {}, text: 'anything' })).to.equal(undefined);
  });
});
