/**
 * `auth policy lint` and `auth test-policies --coverage` (CONTRACT-3 §22), on policy files of our
 * own in a temporary directory: neither needs a database.
 */
import { expect } from 'chai';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { temporaryDirectory } from '../helpers/app.js';
import { ROOT } from '../helpers/processes.js';
import { percent } from '../../cli/commands/test-policies.js';
import { runCli } from './cli-process.js';
import { runCliInProcess } from './in-process.js';

const ROLES = {
  roles: {
    viewer: [
      { action: 'read', subject: 'Report', conditions: { team: 'north' } },
      { action: 'read', subject: 'Report', conditions: { year: { $gte: 2030, $lt: 2020 } } },
      { action: 'read', subject: 'Report', conditions: { owner_id: '${org.id}' } },
    ],
    editor: {
      includes: ['viewer'],
      rules: [
        { action: 'update', subject: 'Report', conditions: { team: 'north' } },
        { action: 'update', subject: 'Report' },
        { action: 'read', subject: 'Report', conditions: { team: 'north' } },
        { action: 'read', subject: 'Note', conditions: { owner_id: '${user.nickname}' } },
      ],
    },
  },
  orgRoles: {
    member: [
      { action: 'read', subject: 'Task' },
      { action: 'update', subject: 'Task', inverted: true, conditions: { done: true } },
    ],
  },
};
const CLEAN = {
  viewer: [
    { action: 'read', subject: 'Report', conditions: { team: 'north' } },
    { action: 'read', subject: 'Report', inverted: true, conditions: { secret: true } },
  ],
};

const TESTS = {
  principals: { vic: { roles: ['viewer'] }, meg: { roles: [], org: { id: 1, slug: 'acme', roles: ['member'] } } },
  tests: [
    { principal: 'vic', action: 'read', subject: 'Report', fields: { team: 'north' }, allowed: true },
    { principal: 'vic', action: 'read', subject: 'Report', fields: { team: 'north', secret: true }, allowed: false },
    { principal: 'meg', action: 'read', subject: 'Task', fields: { org_id: 1 }, allowed: true },
  ],
};

describe('CLI: auth policy lint and test-policies --coverage', () => {
  let dir: string;
  let lint: string;
  let clean: string;
  before(async () => {
    dir = await temporaryDirectory();
    lint = join(dir, 'lint');
    clean = join(dir, 'clean');
    await mkdir(lint);
    await mkdir(join(clean, 'tests'), { recursive: true });
    await writeFile(join(lint, 'roles.json'), JSON.stringify(ROLES));
    await writeFile(
      join(clean, 'roles.json'),
      JSON.stringify({ roles: CLEAN, orgRoles: { member: ROLES.orgRoles.member } }),
    );
    await writeFile(join(clean, 'tests', 'tests.json'), JSON.stringify(TESTS));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('lint names the file, the role and the rule of each finding, and exits 1', async () => {
    const file = join(lint, 'roles.json');
    const { code, stdout, stderr } = await runCliInProcess(['auth', 'policy', 'lint', lint]);
    expect({ code, stderr }).to.deep.equal({ code: 1, stderr: '' });
    expect(stdout.split('\n')).to.deep.equal([
      `${file}: role "editor", rule 1: overridden: never decides: rule 2, later in the role, applies wherever it does`,
      `${file}: role "editor", rule 3: duplicate: the same rule as role "viewer", rule 1 (included)`,
      `${file}: role "editor", rule 4: placeholder: its role's context cannot fill it: unknown placeholder \${user.nickname}; use \${user.id}, \${user.email}, \${user.is_admin} or declare it first with defineUserAttributes(["nickname"], …) (or "userAttributes" in a policy file)`,
      `${file}: role "viewer", rule 2: unsatisfiable: never decides: no subject meets its conditions {"year":{"$gte":2030,"$lt":2020}}`,
      `${file}: role "viewer", rule 3: placeholder: its role's context cannot fill it: \${org.id} is for organization roles only (defineOrgRole, or "orgRoles" in a policy file)`,
      '5 findings',
      '',
    ]);
  });

  it('lint --json; ./policies by default, a missing one a failure; no findings exits 0', async () => {
    const listed = await runCliInProcess(['auth', 'policy', 'lint', join(lint, 'roles.json'), '--json']);
    const { findings } = JSON.parse(listed.stdout) as {
      findings: { kind: string; role: string; rule: number; file: string }[];
    };
    expect(findings.map(({ kind, role, rule }) => `${kind} ${role} ${rule}`)).to.deep.equal([
      'overridden editor 1',
      'duplicate editor 3',
      'placeholder editor 4',
      'unsatisfiable viewer 2',
      'placeholder viewer 3',
    ]);
    const missing = await runCliInProcess(['auth', 'policy', 'lint'], { cwd: clean });
    expect(missing.code).to.equal(1);
    expect(missing.stderr).to.match(/^Cannot lint: policies: cannot be read/);
    await mkdir(join(clean, 'policies'));
    await writeFile(join(clean, 'policies', 'roles.json'), JSON.stringify(CLEAN));
    expect(await runCliInProcess(['auth', 'policy', 'lint'], { cwd: clean })).to.deep.equal({
      code: 0,
      stdout: 'No findings.\n',
      stderr: '',
    });
  });

  it("lint --app checks the application's entities: an organization role's rule on one without the tenant field, a rule value of another type than its column (a process: --app)", async () => {
    const app = join(dir, 'app.mjs');
    await writeFile(
      app,
      [
        `import express from ${JSON.stringify(import.meta.resolve('express'))};`,
        `import { defineEntity } from ${JSON.stringify(import.meta.resolve('@mikro-orm/core'))};`,
        `import { ServiceAuth } from ${JSON.stringify(pathToFileURL(join(ROOT, 'dist/src/index.js')).href)};`,
        'const p = defineEntity.properties;',
        "export const entities = [defineEntity({ name: 'Task', properties: { id: p.integer().primary(), title: p.string() } })];",
        'const app = express();',
        'new ServiceAuth(app);',
        'export default app;',
        '',
      ].join('\n'),
    );
    const file = join(clean, 'roles.json');
    const { code, stdout } = await runCli(['auth', 'policy', 'lint', file, '--app', app], {
      env: { SERVICE_AUTH_DATABASE_URL: 'sqlite::memory:' },
    });
    expect(code).to.equal(1);
    expect(stdout).to.contain(
      `${file}: org role "member", rule 1: no_tenant_field: matches nothing: the entity Task has no tenant field "org_id"`,
    );
    expect(stdout).to.contain(`${file}: org role "member", rule 2: no_tenant_field:`);
    // A rule value of another type than its column (the entity's `title` is text).
    const typed = join(dir, 'typed.json');
    await writeFile(
      typed,
      JSON.stringify({ roles: { viewer: [{ action: 'read', subject: 'Task', conditions: { title: 7 } }] } }),
    );
    const checked = await runCli(['auth', 'policy', 'lint', typed, '--app', app], {
      env: { SERVICE_AUTH_DATABASE_URL: 'sqlite::memory:' },
    });
    expect(checked.stdout).to.contain(
      `${typed}: role "viewer", rule 1: column_type: "title" (Task.title, a string column) is compared with 7, a number: it matches no row`,
    );
    expect(checked.code).to.equal(1);
  });

  it('test-policies --coverage lists, per role, the rules no test decided, and the total', async () => {
    const { code, stdout, stderr } = await runCliInProcess([
      'auth',
      'test-policies',
      join(clean, 'tests', 'tests.json'),
      '--policies',
      clean,
      '--coverage',
    ]);
    expect({ code, stderr }).to.deep.equal({ code: 0, stderr: '' });
    expect(stdout).to.equal(
      [
        `role "viewer" (${join(clean, 'roles.json')}): 2 of 2 rules decided by a test`,
        `org role "member" (${join(clean, 'roles.json')}): 1 of 2 rules decided by a test`,
        '  rule 2, decided by no test: cannot update Task where {"done":true}',
        'Coverage: 75% (3 of 4 rules)',
        '3 passed, 0 failed',
        '',
      ].join('\n'),
    );
  });

  it('prints the coverage to the nearest tenth, never 100% with a rule uncovered nor 0% with one covered', () => {
    const shown = (covered: number, total: number) => percent({ covered, total });
    expect([shown(4, 13), shown(6, 7), shown(1, 3), shown(3, 4), shown(0, 5), shown(5, 5), shown(0, 0)]).to.deep.equal([
      '30.8%',
      '85.7%',
      '33.3%',
      '75%',
      '0%',
      '100%',
      '100%',
    ]);
    expect([shown(1999, 2000), shown(1, 2000)]).to.deep.equal(['99.9%', '0.1%']);
  });

  it('--min-coverage exits 1 below it, 0 at or above; a value that is no percentage is a usage error', async () => {
    const run = (...args: string[]) =>
      runCliInProcess(['auth', 'test-policies', join(clean, 'tests', 'tests.json'), '--policies', clean, ...args]);
    const below = await run('--min-coverage', '100');
    expect(below.code).to.equal(1);
    expect(below.stderr).to.equal('Coverage 75% is below --min-coverage 100%\n');
    expect((await run('--min-coverage', '75')).code).to.equal(0);
    expect((await run('--min-coverage', 'lots')).code).to.equal(2);
    const { coverage } = JSON.parse((await run('--coverage', '--json')).stdout) as { coverage: { percent: number } };
    expect(coverage.percent).to.equal(75);
  });

  it('a test naming an action or subject type no rule names is a malformed file, naming the closest', async () => {
    const typo = join(dir, 'typo.json');
    await writeFile(
      typo,
      JSON.stringify({
        ...TESTS,
        tests: [{ principal: 'vic', action: 'read', subject: 'Reprot', fields: {}, allowed: false }],
      }),
    );
    const { code, stderr } = await runCliInProcess(['auth', 'test-policies', typo, '--policies', clean]);
    expect(code).to.equal(2);
    expect(stderr).to.equal(
      `Malformed policy test file ${typo}:\n  $.tests[0]: no rule of any role names the subject type "Reprot"; did you mean "Report"?\n`,
    );
  });
});
