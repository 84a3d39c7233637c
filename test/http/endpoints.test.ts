/**
 * Endpoints declared once (src/http/endpoints/): the routers serve every declaration, the document
 * served is the one the declarations make, byte for byte, and each operation lists the refusals of
 * the guards it is declared with, under their statuses.
 */
import { expect } from 'chai';
import request from 'supertest';
import { AuthError } from '../../src/errors.js';
import { ENDPOINTS } from '../../src/http/endpoint-table.js';
import { unmounted } from '../../src/http/endpoints/mount.js';
import { openApiDocument } from '../../src/http/openapi.js';
import { createTestApp, type TestApp } from '../helpers/app.js';

const UNSAFE = new Set(['post', 'put', 'patch', 'delete']);

describe('endpoints declared once', () => {
  let t: TestApp;
  beforeEach(async () => {
    const notes = [{ action: 'read', subject: 'Note' }];
    t = await createTestApp({}, (_app, auth) => auth.defineScope('notes:read', notes, 'Reading notes'));
  });
  afterEach(() => t.auth.close());

  it('serves every declaration, and the document served is the one the declarations make, byte for byte', async () => {
    const served = await request(t.app).get('/service-auth/openapi.json').expect(200);
    expect(unmounted(ENDPOINTS)).to.deep.equal([]);
    const scopes = [{ name: 'notes:read', description: 'Reading notes' }];
    expect(served.text).to.equal(JSON.stringify(openApiDocument(t.auth.config, scopes)));
  });

  it('gives each declaration its own operation id, method and path', () => {
    const ids = ENDPOINTS.map((endpoint) => endpoint.operationId);
    expect(new Set(ids).size).to.equal(ids.length);
    const routes = ENDPOINTS.map((endpoint) => `${endpoint.method} ${endpoint.path}`);
    expect(new Set(routes).size).to.equal(routes.length);
  });

  for (const limits of [true, false]) {
    it(`lists on each operation the refusals of its guards, by status (rate limits ${limits ? 'on' : 'off'})`, () => {
      const config = { ...t.auth.config, rateLimit: { ...t.auth.config.rateLimit, enabled: limits } };
      const document = openApiDocument(config);
      let checked = 0;
      for (const endpoint of ENDPOINTS) {
        const operation = document.paths?.[endpoint.documentPath]?.[endpoint.method];
        expect(operation, `${endpoint.method} ${endpoint.path}`).to.not.equal(undefined);
        const responses = operation!.responses as Record<string, { description?: string }>;
        for (const guard of endpoint.guards) {
          for (const code of guard.refusals(config, UNSAFE.has(endpoint.method))) {
            const status = String(new AuthError(code, '').status);
            expect(responses[status]?.description ?? '', `${endpoint.operationId}: ${code}`).to.contain(`\`${code}\``);
            checked++;
          }
        }
      }
      expect(checked).to.be.above(ENDPOINTS.length);
    });
  }
});
