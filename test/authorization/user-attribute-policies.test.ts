/**
 * User attributes where policies are read and analysed (CONTRACT-3 §21, §22): a policy file
 * declares the attribute names its rules use (`"userAttributes"`), for the application and for the
 * CLI alike, and a name it neither declares nor finds declared is an error naming it; policy tests
 * give principals `attributes`; `auth.policies.diff` treats `${user.team}` as a variable, its
 * witness giving the value; `auth policy lint` and `auth check --attribute` read them too.
 */
import { expect } from 'chai';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createTestApp, PASSWORD, temporaryDatabase, temporaryDirectory, type TestApp } from '../helpers/app.js';
import { runCliInProcess } from '../cli/in-process.js';

const TEAM_FILE = {
  userAttributes: ['team'],
  roles: { teammate: [{ action: 'read', subject: 'Doc', conditions: { team: '${user.team}' } }] },
  orgRoles: { lead: [{ action: 'update', subject: 'Doc', conditions: { team: '${user.team}' } }] },
};

describe('user attributes in policy files, policy tests and analysis', () => {
  let t: TestApp;
  let dir: string;
  let database: Awaited<ReturnType<typeof temporaryDatabase>>;

  before(async () => {
    dir = await temporaryDirectory();
    await mkdir(join(dir, 'policies'));
    await writeFile(join(dir, 'policies', 'team.json'), JSON.stringify(TEAM_FILE));
    database = await temporaryDatabase();
    t = await createTestApp({ SERVICE_AUTH_DATABASE_URL: database.url });
    t.auth.loadPolicies(join(dir, 'policies'));
    await t.auth.users.create({ email: 'ada@example.com', password: PASSWORD, roles: ['teammate'] });
  });
  after(async () => {
    await t.auth.close();
    await database.remove();
    await rm(dir, { recursive: true, force: true });
  });

  it('loads a file that declares the names its rules use; one that does not is an error naming the placeholder', () => {
    expect(t.parts.attributeNames.names.has('team')).to.equal(true);
    expect(() => t.auth.loadPolicies(join(dir, 'policies', 'team.json'))).to.not.throw();
    const other = join(dir, 'undeclared.json');
    return writeFile(
      other,
      JSON.stringify({ roles: { r: [{ action: 'read', subject: 'Doc', conditions: { unit: '${user.unit}' } }] } }),
    ).then(() => {
      expect(() => t.auth.loadPolicies(other)).to.throw(
        TypeError,
        /undeclared\.json: \$\.roles\.r\[0\]\.conditions: unknown placeholder \$\{user\.unit\}/,
      );
    });
  });

  it('runs policy tests whose principals have attributes, or none (then rules naming them deny)', () => {
    const report = t.auth.testPolicies({
      principals: { red: { roles: ['teammate'], attributes: { team: 'red' } }, none: { roles: ['teammate'] } },
      tests: [
        { principal: 'red', action: 'read', subject: 'Doc', fields: { team: 'red' }, allowed: true },
        { principal: 'red', action: 'read', subject: 'Doc', fields: { team: 'blue' }, allowed: false },
        { principal: 'none', action: 'read', subject: 'Doc', fields: { team: 'red' }, allowed: false },
      ],
    });
    expect(report.results.map((result) => result.passed)).to.deep.equal([true, true, true]);
    expect(() =>
      t.auth.testPolicies({
        principals: { p: { attributes: { team: ['red'] } } },
        tests: [{ principal: 'p', action: 'read', subject: 'Doc', allowed: false }],
      }),
    ).to.throw(/principals\.p\.attributes\.team: must be a string, a number, a boolean or null/);
  });

  it('diffs rules that name an attribute, the witness giving its value', () => {
    const before = {
      userAttributes: ['team'],
      roles: { teammate: [{ action: 'read', subject: 'Doc', conditions: { team: '${user.team}' } }] },
    };
    const after = {
      userAttributes: ['team'],
      roles: { teammate: [{ action: 'read', subject: 'Doc', conditions: { team: { $ne: '${user.team}' } } }] },
    };
    const { changes, not_analysed } = t.auth.policies.diff(before, after);
    expect(not_analysed).to.deep.equal([]);
    const grant = changes.find((change) => change.change === 'grant')!;
    expect(grant.witness.user.attributes).to.have.property('team');
    expect(grant.witness.subject['team']).to.not.equal(grant.witness.user.attributes!['team']);
    // A change to a rule that names no attribute, in a role whose other rules do.
    const more = (action: string) => ({
      ...before,
      roles: { teammate: [...before.roles.teammate, { action, subject: 'Note' }] },
    });
    expect(
      t.auth.policies.diff(more('read'), more('update')).changes.map(({ action, change }) => [action, change]),
    ).to.deep.equal([
      ['read', 'revoke'],
      ['update', 'grant'],
    ]);
  });

  it('lints and checks from the CLI with the file’s names; auth check takes --attribute', async () => {
    const lint = await runCliInProcess(['auth', 'policy', 'lint', join(dir, 'policies'), '--json']);
    expect(lint.code, lint.stderr).to.equal(0);
    expect(JSON.parse(lint.stdout).findings).to.deep.equal([]);
    const check = (...args: string[]) =>
      runCliInProcess([
        'auth',
        'check',
        '--email',
        'ada@example.com',
        '--action',
        'read',
        '--subject',
        'Doc',
        '--field',
        'team=red',
        '--policies',
        join(dir, 'policies'),
        '--database',
        database.url,
        ...args,
      ]);
    expect((await check('--attribute', 'team=red')).code).to.equal(0);
    expect((await check('--attribute', 'team=blue')).code).to.equal(3);
    const lacking = await check();
    expect(lacking.code, 'no values: the rule naming one denies').to.equal(3);
    // And says which rule was left out for lack of which attribute, and how to give it.
    expect(lacking.stdout).to.equal(
      [
        'denied',
        'no rule of the roles teammate grants it',
        'left out, lacking user attributes:',
        `  role "teammate", rule 1 (${join(dir, 'policies', 'team.json')}): can read Doc where {"team":"\${user.team}"}`,
        "    names ${user.team}, and without --app (whose resolver gives the user's values) or --attribute the user has none: add --attribute team=VALUE",
        '',
      ].join('\n'),
    );
    // A name no policy file declares is a typo, not a value the user lacks.
    const typo = await check('--attribute', 'unit=north');
    expect(typo.code).to.equal(2);
    expect(typo.stderr).to.contain('--attribute unit: no such user attribute (the declared ones are team)');
    const other = await check('--json');
    expect(JSON.parse(other.stdout).lacking_attributes).to.deep.equal([
      {
        role: 'teammate',
        index: 1,
        source: join(dir, 'policies', 'team.json'),
        attributes: ['team'],
        action: 'read',
        subject: 'Doc',
      },
    ]);
    expect((await check('--attribute', 'team=blue')).stdout).to.not.contain('lacking');
    const bad = await check('--attribute', 'team:={"$ne":null}');
    expect(bad.code).to.equal(2);
    expect(bad.stderr).to.match(/"team" must be a string, a finite number, a boolean/);
  });
});
