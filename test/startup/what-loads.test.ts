/**
 * What an application's start loads (docs/performance.md#cold-start): `import 'service-auth'` and a
 * server's start and first requests load none of the optional libraries (TOTP, QR codes, passkeys,
 * the password blocklist, SMTP, Redis, the migrator, the OpenAPI document's builder); each loads
 * when its feature is first used, as the auth routes, the built-in pages and the rate limiter do;
 * and one that is missing then fails that request as an opaque 500 whose log line names the
 * module, not the start. Counted in modules loaded by one real process of the built package
 * (fixtures/server-phases.mjs), not timed: the bench times it.
 */
import { expect } from 'chai';
import * as crypto from 'node:crypto';
import { readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { createTestApp, PASSWORD, temporaryDatabase, temporaryDirectory } from '../helpers/app.js';
import { MIKRO_ORM_MAJOR, SQL_LAYER_PACKAGE } from '../helpers/orm.js';
import { ROOT } from '../helpers/processes.js';
import { assertBuilt, runCli } from '../cli/cli-process.js';

const TRACE = new URL('../cli/fixtures/module-trace.mjs', import.meta.url).href;
const FIXTURE = new URL('./fixtures/server-phases.mjs', import.meta.url).pathname;
const EMAIL = 'ada@example.com';

/** The optional libraries, by the path that shows one loaded. */
const OPTIONAL = {
  otpauth: '/node_modules/otpauth/',
  qrcode: '/node_modules/qrcode/',
  passkeys: '/node_modules/@simplewebauthn/server/',
  blocklist: '/node_modules/@zxcvbn-ts/language-common/',
  nodemailer: '/node_modules/nodemailer/',
  ioredis: '/node_modules/ioredis/',
  // The migrator; on MikroORM 7, whose init imports @mikro-orm/migrations whenever it is installed
  // (and which has no umzug), the package's own migrations, which it loads with the migrator.
  migrator: MIKRO_ORM_MAJOR >= 7 ? '/dist/src/storage/migrations/frozen/' : '/node_modules/@mikro-orm/migrations/',
  ...(MIKRO_ORM_MAJOR < 7 && { umzug: '/node_modules/umzug/' }),
  openapi: '/dist/src/http/openapi.js',
  'openid-client': '/node_modules/openid-client/',
};

/** What loads with the first request that needs it, not at start: the server's own first requests may need none. */
const FIRST_USE = {
  routes: '/dist/src/http/routes.js',
  pages: '/dist/src/http/pages/index.js',
  'rate-limiter-flexible': '/node_modules/rate-limiter-flexible/',
};

/** The packages a module's URL belongs to: "zod", "@mikro-orm/core" (the last node_modules in it). */
const packageOf = (url: string): string | undefined => /.*\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1];

interface Step {
  status: number;
  type: string;
  body: string;
}

describe('What a server loads at start, and what it loads when a feature is first used', () => {
  let dir: string;
  /** The modules loaded by each phase (the fixture's steps), and by all the phases up to it. */
  const during = new Map<string, string[]>();
  const upTo = new Map<string, string[]>();
  let steps: Record<string, Step>;
  let logged: string[];

  before(async () => {
    assertBuilt();
    dir = await temporaryDirectory();
    const database = await temporaryDatabase();
    try {
      // An up-to-date database with one user, as a server restarting finds it.
      const t = await createTestApp({ SERVICE_AUTH_DATABASE_URL: database.url });
      await t.auth.users.create({ email: EMAIL, password: PASSWORD });
      await t.auth.close();

      const trace = join(dir, 'trace.txt');
      const env = {
        MODULE_TRACE: trace,
        SERVICE_AUTH_DATABASE_URL: database.url,
        SERVICE_AUTH_PUBLIC_URL: 'http://localhost:3000',
        EMAIL,
        PASSWORD,
      };
      const result = await runCli(['--import', TRACE, FIXTURE], { runner: 'node', env, cwd: ROOT });
      expect({ code: result.code, stderr: result.stderr }).to.deep.equal({ code: 0, stderr: '' });
      ({ steps, logged } = JSON.parse(result.stdout) as { steps: Record<string, Step>; logged: string[] });

      let phase: string[] = [];
      const all: string[] = [];
      for (const line of (await readFile(trace, 'utf8')).split('\n').filter(Boolean)) {
        if (line.startsWith('# ')) {
          during.set(line.slice(2), phase);
          upTo.set(line.slice(2), [...all]);
          phase = [];
        } else {
          phase.push(line);
          all.push(line);
        }
      }
    } finally {
      await database.remove();
    }
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  const loaded = (modules: string[] | undefined, path: string): boolean => {
    expect(modules, 'a phase the fixture marks').to.not.equal(undefined);
    return modules!.some((url) => url.includes(path));
  };
  const answered = (name: string, status: number): Step => {
    expect({ step: name, status: steps[name]?.status }).to.deep.equal({ step: name, status });
    return steps[name]!;
  };

  it("import 'service-auth' loads, of the package's dependencies, only the ones every request may need", async () => {
    const manifest = JSON.parse(await readFile(join(ROOT, 'package.json'), 'utf8')) as Record<
      string,
      Record<string, string> | undefined
    >;
    const ours = new Set([
      ...Object.keys(manifest['dependencies'] ?? {}),
      ...Object.keys(manifest['peerDependencies'] ?? {}),
    ]);
    const direct = new Set(
      upTo
        .get('import')!
        .map(packageOf)
        .filter((name): name is string => name !== undefined && ours.has(name)),
    );
    // Express and MikroORM (core and its SQL layer) are the floor; the others are small or are
    // what the synchronous API uses (zod checks the rules defineRole is given).
    expect([...direct].sort()).to.deep.equal(
      [
        '@casl/ability',
        '@mikro-orm/core',
        SQL_LAYER_PACKAGE,
        '@ucast/mongo2js',
        'express',
        'fastest-levenshtein',
        'ipaddr.js',
        'lru-cache',
        'zod',
      ].sort(),
    );
    for (const [name, path] of Object.entries(OPTIONAL))
      expect(loaded(upTo.get('import'), path), `the import loaded ${name}`).to.equal(false);
  });

  it('hashes with Node’s own crypto.argon2 where Node has it; elsewhere loads the argon2 package at the start, not the import', () => {
    const nodeHasArgon2 = typeof (crypto as { argon2?: unknown }).argon2 === 'function';
    expect(loaded(upTo.get('import'), '/node_modules/argon2/'), 'the import loaded argon2').to.equal(false);
    expect(loaded(upTo.get('ready'), '/node_modules/argon2/'), 'the start loaded argon2').to.equal(!nodeHasArgon2);
  });

  it("the auth routes and the rate limiter's library load with the first request to the routes; the built-in pages with the first page", () => {
    for (const [name, path] of Object.entries(FIRST_USE))
      expect(loaded(upTo.get('ready'), path), `the import or the start loaded ${name}`).to.equal(false);
    answered('login', 200);
    expect(loaded(during.get('login'), FIRST_USE.routes), 'the routes, with the login').to.equal(true);
    expect(loaded(during.get('login'), FIRST_USE['rate-limiter-flexible']), 'the limiter, with the login').to.equal(
      true,
    );
    // Every step of the fixture asks for JSON: none is answered with a page.
    expect(loaded(upTo.get('password change'), FIRST_USE.pages), 'the pages, with no page sent').to.equal(false);
  });

  it('a server on an up-to-date database starts, logs a user in and answers a guarded route without loading any of them', () => {
    answered('login', 200);
    expect(JSON.parse(answered('first request', 200).body)).to.deep.equal({ id: 1 });
    for (const [name, path] of Object.entries(OPTIONAL))
      expect(loaded(upTo.get('first request'), path), `the start or first requests loaded ${name}`).to.equal(false);
  });

  it('each optional library loads with the first use of its feature', () => {
    answered('totp', 200);
    expect(loaded(during.get('totp'), OPTIONAL.otpauth)).to.equal(true);
    expect(loaded(during.get('totp'), OPTIONAL.qrcode)).to.equal(true);
    answered('passkey options', 200);
    expect(loaded(during.get('passkey options'), OPTIONAL.passkeys)).to.equal(true);
    answered('openapi', 200);
    expect(loaded(during.get('openapi'), OPTIONAL.openapi)).to.equal(true);
    answered('password change', 200); // with the blocklist on
    expect(loaded(during.get('password change'), OPTIONAL.blocklist)).to.equal(true);
    // A second instance on a fresh database, sending mail over SMTP: the migrator and nodemailer at its start.
    const fresh = during.get('fresh database with SMTP');
    for (const name of ['migrator', 'umzug', 'nodemailer'] as const)
      if (OPTIONAL[name]) expect(loaded(fresh, OPTIONAL[name]), name).to.equal(true);
    expect(
      loaded(upTo.get('fresh database with SMTP'), OPTIONAL.ioredis),
      'ioredis, with no Redis configured',
    ).to.equal(false);
  });

  it('a library missing when its feature is first used fails that request as an opaque 500, with the module named in the log', () => {
    const failed = answered('totp without otpauth', 500);
    expect(failed.type).to.match(/^application\/problem\+json/);
    expect(JSON.parse(failed.body)).to.deep.include({ status: 500, code: 'internal_error' });
    expect(failed.body).to.not.match(/otpauth|node_modules|\n\s+at /);
    expect(
      logged.filter((line) => line.includes("Cannot find module 'otpauth'")),
      'the log line',
    ).to.have.length(1);
    // Nothing was half done: the set-up that follows, with the library back, starts afresh.
    expect(JSON.parse(answered('totp', 200).body)).to.have.keys('secret', 'otpauth_url', 'qr_svg');
  });
});
