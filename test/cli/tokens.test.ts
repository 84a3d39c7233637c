import { expect } from 'chai';
import { createHash } from 'node:crypto';
import { createTestApp, PASSWORD, temporaryDatabase, type TestApp } from '../helpers/app.js';
import { runCli, type CliResult } from './cli-process.js';
import { runCliInProcess } from './in-process.js';
import { PROPAGATION_MS } from './running-app.js';

describe('CLI: create-token, list-tokens, revoke-token, import-legacy-token', () => {
  let database: Awaited<ReturnType<typeof temporaryDatabase>>;
  let t: TestApp;
  const results: Record<string, CliResult> = {};
  const cli = (args: string[], env: Record<string, string> = {}): Promise<CliResult> =>
    runCliInProcess(['auth', ...args, '--database', database.url], { env });
  /** The writers at once, each a process of its own (what SQLite's busy answers are about). */
  const inAProcessOfItsOwn = (args: string[]): Promise<CliResult> =>
    runCli(['auth', ...args, '--database', database.url]);
  const legacyRaw = 'legacy-token-from-the-old-system';
  const legacySha256 = createHash('sha256').update(legacyRaw).digest('hex');

  before(async function () {
    // A dozen CLI processes at once, several deriving a token's hash: slow on a busy 2-core machine.
    this.timeout(120_000);
    database = await temporaryDatabase();
    t = await createTestApp({ SERVICE_AUTH_DATABASE_URL: database.url });
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD });
    await t.auth.users.create({ email: 'bob@example.com', password: PASSWORD });
    await t.auth.users.create({ email: 'cy@example.com', password: PASSWORD });
    await t.auth.tokens.create((await t.auth.users.findByEmail('cy@example.com'))!.id, { name: 'only one allowed' });

    // Writers at once, from separate processes: each waits its turn for SQLite's write lock, none fails.
    const [plain, scoped, imported] = await Promise.all([
      inAProcessOfItsOwn(['create-token', '--email', 'ada@example.com', '--name', 'deploy']),
      inAProcessOfItsOwn([
        'create-token',
        '--email',
        'BOB@example.com',
        '--name',
        'reports',
        '--scope',
        'reports:read',
        '--scope',
        'notes:read',
        '--expires-in-days',
        '30',
      ]),
      inAProcessOfItsOwn([
        'import-legacy-token',
        '--email',
        'ada@example.com',
        '--sha256',
        legacySha256.toUpperCase(),
        '--name',
        'old script',
      ]),
    ]);
    Object.assign(results, { plain, scoped, imported });

    const failures = await Promise.all([
      cli(['create-token', '--email', 'nobody@example.com', '--name', 'x']),
      cli([
        'create-token',
        '--email',
        'ada@example.com',
        '--name',
        'x',
        '--expires-in-days',
        '0',
        '--scope',
        'Not A Scope',
      ]),
      cli(['create-token', '--email', 'ada@example.com']),
      cli(['create-token', '--email', 'cy@example.com', '--name', 'second'], { SERVICE_AUTH_MAX_TOKENS_PER_USER: '1' }),
      cli(['revoke-token', 'NoSuchTokenId123']),
      cli(['import-legacy-token', '--email', 'ada@example.com', '--sha256', 'not-hex', '--name', 'bad']),
      cli(['import-legacy-token', '--email', 'bob@example.com', '--sha256', legacySha256, '--name', 'again']),
    ]);
    const names = ['unknownEmail', 'invalidFields', 'missingName', 'overCap', 'unknownId', 'badHash', 'duplicateHash'];
    names.forEach((name, i) => (results[name] = failures[i]!));

    [results['table'], results['json'], results['ofBob'], results['legacyOnly']] = await Promise.all([
      cli(['list-tokens']),
      cli(['list-tokens', '--json']),
      cli(['list-tokens', '--email', 'bob@example.com', '--json']),
      cli(['list-tokens', '--legacy', '--json']),
    ]);
  });
  after(async () => {
    await t.auth.close();
    await database.remove();
  });

  describe('create-token', () => {
    it('prints the raw token alone on stdout, and the token works', async () => {
      expect(results['plain']!.code).to.equal(0);
      expect(results['plain']!.stderr).to.equal('');
      expect(results['plain']!.stdout).to.match(/^sat_[A-Za-z0-9]{16}_[A-Za-z0-9]{49}\n$/);
      const record = await t.auth.tokens.verify(results['plain']!.stdout.trim());
      expect(record?.userId).to.equal((await t.auth.users.findByEmail('ada@example.com'))!.id);
    });

    it('takes scopes and an expiry', async () => {
      expect(results['scoped']!.code).to.equal(0);
      const record = await t.auth.tokens.verify(results['scoped']!.stdout.trim());
      expect(record!.scopes).to.deep.equal(['reports:read', 'notes:read']);
      expect((record!.expiresAt!.getTime() - Date.now()) / 86_400_000).to.be.within(29.9, 30);
    });

    it('fails with a message on stderr, creating nothing, for an unknown email, invalid options, or past the cap', async () => {
      expect(results['unknownEmail']).to.deep.equal({
        code: 1,
        stdout: '',
        stderr: 'Unknown email: no user with email nobody@example.com\n',
      });
      expect(results['invalidFields']!.code).to.equal(1);
      expect(results['invalidFields']!.stdout).to.equal('');
      expect(results['invalidFields']!.stderr).to.equal(
        'Invalid --expires-in-days: must be an integer from 1 to 365\nInvalid --scope: must be a list of scopes matching [a-z0-9:._-]{1,64}\n',
      );
      expect(results['missingName']!.code).to.equal(2);
      expect(results['missingName']!.stderr).to.contain('--name is required');
      expect(results['overCap']!.code).to.equal(1);
      expect(results['overCap']!.stderr).to.match(
        /^Token limit reached: You already have 1 active tokens; revoke one first\n$/,
      );
      const cy = await t.auth.users.findByEmail('cy@example.com');
      expect(await t.auth.tokens.list({ user: cy!.id })).to.have.length(1);
    });
  });

  describe('list-tokens', () => {
    it('prints an aligned table without secrets', () => {
      const { code, stdout, stderr } = results['table']!;
      expect(code).to.equal(0);
      expect(stderr).to.equal('');
      const lines = stdout.trimEnd().split('\n');
      expect(lines[0]).to.match(/^ID +Email +Name +Scopes +Created +Last used +Expires +Legacy$/);
      expect(lines).to.have.length(5);
      const emailColumn = lines[0]!.indexOf('Email');
      for (const line of lines.slice(1)) expect(line.slice(emailColumn)).to.match(/^[a-z]+@example\.com /);
      expect(stdout).to.contain('reports:read notes:read').and.contain('old script');
      expect(stdout).not.to.contain(results['plain']!.stdout.trim().split('_')[2]!);
      expect(stdout).not.to.contain(legacySha256);
    });

    it('prints JSON: the API objects with the owner email', () => {
      const tokens = JSON.parse(results['json']!.stdout) as Record<string, unknown>[];
      expect(tokens).to.have.length(4);
      for (const token of tokens) {
        expect(Object.keys(token).sort()).to.deep.equal([
          'created_at',
          'email',
          'expires_at',
          'id',
          'last_used_at',
          'legacy',
          'name',
          'org',
          'scopes',
        ]);
      }
      const legacy = tokens.find((token) => token['legacy'] === true)!;
      expect(legacy).to.include({ email: 'ada@example.com', name: 'old script', expires_at: null });
      expect(legacy['id']).to.equal(results['imported']!.stdout.trim());
    });

    it('filters by owner and to legacy tokens', () => {
      expect((JSON.parse(results['ofBob']!.stdout) as { name: string }[]).map((token) => token.name)).to.deep.equal([
        'reports',
      ]);
      expect(
        (JSON.parse(results['legacyOnly']!.stdout) as { name: string }[]).map((token) => token.name),
      ).to.deep.equal(['old script']);
    });
  });

  describe('import-legacy-token', () => {
    it('prints the new id, and the old raw token keeps working', async () => {
      expect(results['imported']!.code).to.equal(0);
      expect(results['imported']!.stdout).to.match(/^[A-Za-z0-9]{16}\n$/);
      expect((await t.auth.tokens.verify(legacyRaw))?.publicId).to.equal(results['imported']!.stdout.trim());
    });

    it('refuses a malformed hash and a hash imported before', () => {
      expect(results['badHash']).to.deep.equal({
        code: 1,
        stdout: '',
        stderr: 'Invalid --sha256: must be 64 hexadecimal characters\n',
      });
      expect(results['duplicateHash']).to.deep.equal({
        code: 1,
        stdout: '',
        stderr: 'Invalid --sha256: this token was already imported\n',
      });
    });
  });

  describe('revoke-token', () => {
    it('revokes, and a running instance refuses the token within a second', async () => {
      const token = results['scoped']!.stdout.trim();
      expect(await t.auth.tokens.verify(token)).not.to.equal(null); // seen (and cached) by the running instance
      const revoked = await cli(['revoke-token', token.split('_')[1]!]);
      expect(revoked).to.deep.equal({ code: 0, stdout: `Revoked token ${token.split('_')[1]}\n`, stderr: '' });
      // Asked until refused, for at most the second the README promises.
      for (const deadline = Date.now() + PROPAGATION_MS; (await t.auth.tokens.verify(token)) !== null;) {
        if (Date.now() > deadline)
          expect.fail(`the running instance still accepts the revoked token after ${PROPAGATION_MS} ms`);
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    });

    it('fails for an unknown id', () => {
      expect(results['unknownId']).to.deep.equal({
        code: 1,
        stdout: '',
        stderr: 'Unknown token id: no token that is not revoked has the id "NoSuchTokenId123"\n',
      });
    });
  });

  describe('create-token --org', () => {
    it('binds the token to an organization of the user, and refuses one the user is not a member of', async () => {
      const acme = await t.auth.orgs.create({ name: 'Acme', slug: 'acme', owner: 'ada@example.com' });
      const bound = await cli(['create-token', '--email', 'ada@example.com', '--name', 'acme ci', '--org', 'acme']);
      expect(bound.code, bound.stderr).to.equal(0);
      const listed = (await t.auth.tokens.list({ user: 'ada@example.com' })).find((token) => token.name === 'acme ci');
      expect(listed?.org).to.deep.equal({ id: acme.id, slug: 'acme' });
      expect(await cli(['create-token', '--email', 'bob@example.com', '--name', 'x', '--org', 'acme'])).to.deep.equal({
        code: 1,
        stdout: '',
        stderr: 'Invalid --org: is no organization you are a member of\n',
      });
    });
  });

  describe('create-token with scopes defined in ./policies', () => {
    // Run from the repository's root, as the tests above: ./policies is the demo's, which defines scopes (policies/scopes.json).
    it('refuses a scope the policies do not define (unknown_scope, naming it), and takes one they do', async () => {
      const refused = await cli([
        'create-token',
        '--email',
        'ada@example.com',
        '--name',
        'typo',
        '--scope',
        'tasks:raed',
      ]);
      expect(refused.code).to.equal(1);
      expect(refused.stdout).to.equal('');
      expect(refused.stderr).to.include('no scope named "tasks:raed"');
      const made = await cli([
        'create-token',
        '--email',
        'ada@example.com',
        '--name',
        'reader',
        '--scope',
        'tasks:read',
      ]);
      expect(made.code, made.stderr).to.equal(0);
      const tokens = await t.auth.tokens.list({ user: 'ada@example.com' });
      expect(tokens.find((token) => token.name === 'reader')?.scopes).to.deep.equal(['tasks:read']);
      expect(tokens.map((token) => token.name)).not.to.include('typo');
    });
  });
});
