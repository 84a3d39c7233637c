/**
 * A typed client as a user makes one: types generated from the served document by
 * openapi-typescript, calls made with openapi-fetch. A small program registers, creates a token
 * and reads `data.token` and `error.code` without narrowing them: it must type-check (strict, one
 * compiler run on a temporary directory), and then run against the real app.
 */
import { mkdtemp, rm, symlink, writeFile, mkdir } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { expect } from 'chai';
import openapiTS, { astToString } from 'openapi-typescript';
import request from 'supertest';
import ts from 'typescript';
import { createTestApp, PASSWORD, type TestApp } from '../helpers/app.js';

/** What a user of the generated types writes; `@ts-expect-error` proves the types are not `any`. */
const PROGRAM = `import createClient from 'openapi-fetch';
import type { paths } from './api.js';

export async function run(baseUrl: string): Promise<{ token: string; refusal: string | undefined }> {
  const client = createClient<paths>({ baseUrl, headers: { 'Sec-Fetch-Site': 'same-origin' } });
  const body = { email: 'typed@example.com', password: ${JSON.stringify(PASSWORD)} };
  const registered = await client.POST('/register', { body });
  if (registered.error) throw new Error(registered.error.code);
  const cookie = registered.response.headers.get('set-cookie')?.split(';')[0] ?? '';
  const created = await client.POST('/api/tokens', { body: { name: 'ci', expires_in_days: 30 }, headers: { Cookie: cookie } });
  if (created.error) throw new Error(created.error.code);
  // @ts-expect-error: a created token has no such field
  void created.data.secret;
  const again = await client.POST('/register', { body });
  return { token: created.data.token, refusal: again.error?.code };
}
`;

describe('a client generated from the OpenAPI document (openapi-typescript, openapi-fetch)', () => {
  let t: TestApp;
  let dir: string;
  before(async () => {
    t = await createTestApp({ SERVICE_AUTH_RATE_LIMIT_ENABLED: false });
    dir = await mkdtemp(join(tmpdir(), 'service-auth-client-'));
  });
  after(async () => {
    await t.auth.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('type-checks a program that registers, creates a token and reads data.token and error.code, and the program works', async () => {
    const served = (await request(t.app).get('/service-auth/openapi.json').expect(200)).body;
    await writeFile(join(dir, 'api.d.ts'), astToString(await openapiTS(served)));
    await writeFile(join(dir, 'client.ts'), PROGRAM);
    await writeFile(join(dir, 'package.json'), '{ "type": "module" }');
    await mkdir(join(dir, 'node_modules'));
    await symlink(join(process.cwd(), 'node_modules', 'openapi-fetch'), join(dir, 'node_modules', 'openapi-fetch'));

    const program = ts.createProgram([join(dir, 'client.ts')], {
      strict: true,
      noUncheckedIndexedAccess: true,
      noEmit: true,
      skipLibCheck: true,
      target: ts.ScriptTarget.ES2022,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      lib: ['lib.es2022.d.ts', 'lib.dom.d.ts'],
      types: [],
    });
    const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(problems).to.deep.equal([]);

    const { outputText } = ts.transpileModule(PROGRAM, {
      compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 },
    });
    await writeFile(join(dir, 'client.js'), outputText);
    const { run } = (await import(pathToFileURL(join(dir, 'client.js')).href)) as {
      run(baseUrl: string): Promise<{ token: string; refusal: string | undefined }>;
    };
    const server = t.app.listen(0);
    try {
      const { port } = server.address() as AddressInfo;
      const { token, refusal } = await run(`http://127.0.0.1:${port}/service-auth`);
      expect(token).to.match(/^sat_/);
      expect(refusal).to.equal('email_taken');
    } finally {
      server.close();
    }
  });
});
