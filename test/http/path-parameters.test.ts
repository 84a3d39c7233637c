/**
 * Every parameter of every path the served OpenAPI document lists, pages included, sent what an
 * attacker sends: a NUL, an escape that does not decode, 10 KB, and `../`. Each with every method,
 * as a program with a session, as a browser's form with a session, and with a bearer token. Never
 * a 500; a path parameter that can name nothing is refused before any query.
 */
import { expect } from 'chai';
import type { OpenAPIV3_1 } from 'openapi-types';
import request from 'supertest';
import type { OpenApiDocument } from '../../src/http/openapi.js';
import { createTestApp, PASSWORD, sessionCookieFrom, type TestApp } from '../helpers/app.js';
import { onStatement } from '../helpers/orm.js';

/** Each as it goes into the URL, already escaped. */
const VALUES = { nul: 'a%00b', undecodable: '%ZZ', '10 KB': 'x'.repeat(10 * 1024), 'dot-dot-slash': '..%2F' } as const;
/** Those no id of ours can be: refused with 400 before any statement runs. */
const REFUSED = new Set(['nul', 'undecodable', '10 KB']);
const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete'] as const;

describe('every path and query parameter of the OpenAPI document, spoilt', () => {
  let t: TestApp;
  let document: OpenApiDocument;
  let clients: Record<string, Record<string, string>>;
  const statements: string[] = [];

  before(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    const cookie = sessionCookieFrom(
      await request(t.app)
        .post('/service-auth/login')
        .send({ email: 'ada@example.com', password: PASSWORD })
        .expect(200),
    )!;
    const { token } = await t.auth.tokens.create('ada@example.com', { name: 'walk' });
    const sameSite = { 'Sec-Fetch-Site': 'same-origin', Cookie: cookie };
    clients = {
      program: { ...sameSite, Accept: 'application/json', 'Content-Type': 'application/json' },
      'browser form': { ...sameSite, Accept: 'text/html', 'Content-Type': 'application/x-www-form-urlencoded' },
      'bearer token': { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json' },
    };
    document = (await request(t.app).get('/service-auth/openapi.json').expect(200)).body;
    await onStatement(await t.parts.storage.em(), (sql) => statements.push(sql));
  });
  after(() => t.auth.close());

  const send = (method: (typeof METHODS)[number], url: string, headers: Record<string, string>) => {
    const call = request(t.app)[method](url).set(headers);
    return method === 'get' || method === 'head'
      ? call
      : call.send(headers['Content-Type'] === 'application/json' ? '{}' : '');
  };

  it('refuses a NUL, an undecodable escape or 10 KB in any path parameter with 400 before any query, on every method, and never answers 500', async () => {
    const templates = Object.keys(document.paths ?? {}).filter((path) => path.includes('{'));
    // The JSON API's and the pages' alike.
    expect(templates).to.include.members([
      '/api/passkeys/{id}',
      '/api/tokens/{id}',
      '/api/sessions/{id}',
      '/passkeys/{id}/remove',
      '/sessions/{id}/end',
      '/tokens/{id}/revoke',
    ]);
    // One parameter spoilt at a time, the others harmless: two of 10 KB would pass Node's limit on
    // the request line (431) before any route sees them.
    const spoilt = templates.flatMap((template) =>
      (template.match(/\{[^}]+\}/g) ?? []).map((parameter) => ({ template, parameter })),
    );
    for (const { template, parameter } of spoilt) {
      for (const [name, value] of Object.entries(VALUES)) {
        const url = `/service-auth${template.replace(parameter, value).replace(/\{[^}]+\}/g, 'x')}`;
        for (const method of METHODS) {
          // Every method as a program; the documented ones also as a browser's form and with a token.
          const documented =
            method in (document.paths![template] as object) ||
            (method === 'head' && 'get' in (document.paths![template] as object));
          for (const [client, headers] of Object.entries(clients).slice(0, documented ? undefined : 1)) {
            statements.length = 0;
            const response = await send(method, url, headers);
            const what = `${method.toUpperCase()} ${template} with ${name} in ${parameter}, as a ${client}: ${response.status} ${response.text?.slice(0, 200)}`;
            expect(response.status, what).to.be.below(500);
            if (!REFUSED.has(name)) continue;
            expect(response.status, what).to.equal(400);
            expect(statements, what).to.deep.equal([]);
            if (client !== 'browser form' && method !== 'head')
              expect(response.body.code, what).to.equal('bad_request');
          }
        }
      }
    }
  });

  it('answers any value of a query parameter without a 500, on the operation that takes it', async () => {
    const operations = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
      Object.entries(item as Record<string, OpenAPIV3_1.OperationObject>).map(([method, operation]) => ({
        path,
        method,
        operation,
      })),
    );
    let walked = 0;
    for (const { path, method, operation } of operations) {
      const queries = ((operation.parameters ?? []) as OpenAPIV3_1.ParameterObject[]).filter(
        (parameter) => parameter.in === 'query',
      );
      for (const parameter of queries) {
        for (const [name, value] of Object.entries(VALUES)) {
          // As a browser for a page's own URL, as a program for the API.
          const client = operation.tags?.includes('pages') ? 'browser form' : 'program';
          walked++;
          const response = await send(
            method as (typeof METHODS)[number],
            `/service-auth${path.replace(/\{[^}]+\}/g, 'x')}?${parameter.name}=${value}`,
            clients[client]!,
          );
          expect(
            response.status,
            `${method.toUpperCase()} ${path}?${parameter.name}= ${name}, as a ${client}: ${response.text?.slice(0, 200)}`,
          ).to.be.below(500);
        }
      }
    }
    expect(walked).to.be.above(40);
  });
});
