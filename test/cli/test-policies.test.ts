import { expect } from 'chai';
import { readFileSync } from 'node:fs';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PolicyTestFileError } from '../../src/authorization/policy-tests.js';
import { createTestApp, temporaryDatabase, temporaryDirectory, type TestApp } from '../helpers/app.js';
import { ROOT } from '../helpers/processes.js';
import { runBatch, runCli, type CliResult } from './cli-process.js';
import { runCliInProcess } from './in-process.js';

const ROLES = {
  analyst: [{ action: 'read', subject: 'Report', conditions: { team: 'north' } }],
  member: [{ action: 'read', subject: 'Note', conditions: { owner_id: '${user.id}' } }],
};
const principals = { ann: { roles: ['analyst'] }, meg: { roles: ['member'], id: 7 } };
const north = { subject: 'Report', fields: { team: 'north' } };
const PASSING = {
  principals,
  resources: { north },
  tests: [
    { principal: 'ann', action: 'read', resource: 'north', allowed: true },
    { principal: 'ann', action: 'read', subject: 'Report', fields: { team: 'south' }, allowed: false },
  ],
};
const MORE = {
  principals,
  tests: [
    { principal: 'meg', action: 'read', subject: 'Note', fields: { owner_id: 7 }, allowed: true },
    { principal: 'meg', action: 'read', subject: 'Note', fields: { owner_id: 8 }, allowed: false },
    { principal: 'meg', action: 'read', subject: 'Report', fields: { team: 'north' }, allowed: false },
  ],
};
const FAILING = {
  principals,
  resources: { north },
  tests: [
    { principal: 'ann', action: 'read', resource: 'north', allowed: true },
    {
      description: 'south is readable',
      principal: 'ann',
      action: 'read',
      subject: 'Report',
      fields: { team: 'south' },
      allowed: true,
    },
    { principal: 'ann', action: 'read', resource: 'north', allowed: false },
  ],
};
// Organization roles in a file of their own beside ROLES, and a principal who is a member of acme.
const ORG_ROLES = {
  orgRoles: { editor: [{ action: 'update', subject: 'Project', conditions: { lead_id: '${user.id}' } }] },
};
const IN_ORG = {
  principals: { mia: { id: 3, org: { id: 1, slug: 'acme', roles: ['editor'] } } },
  tests: [
    { principal: 'mia', action: 'update', subject: 'Project', fields: { org_id: 1, lead_id: 3 }, allowed: true },
    {
      description: "another organization's project",
      principal: 'mia',
      action: 'update',
      subject: 'Project',
      fields: { org_id: 2, lead_id: 3 },
      allowed: false,
    },
    { principal: 'mia', action: 'update', subject: 'Project', fields: { org_id: 1, lead_id: 3 }, allowed: false },
  ],
};
const POLICY = { principals, tests: [{ principal: 'meg', policy: 'is_self', context: { user_id: 7 }, allowed: true }] };
const DEMO_TESTS = (JSON.parse(readFileSync(join(ROOT, 'policies/tests/demo.json'), 'utf8')) as { tests: unknown[] })
  .tests.length;

describe('CLI: auth test-policies', () => {
  let dir: string;
  let policies: string;
  let database: Awaited<ReturnType<typeof temporaryDatabase>>;
  const results: Record<string, CliResult> = {};
  const file = (name: string) => join(dir, name);

  before(async () => {
    dir = await temporaryDirectory();
    database = await temporaryDatabase();
    policies = file('policies');
    await mkdir(join(policies, 'tests'), { recursive: true });
    const write = (name: string, content: unknown) =>
      writeFile(file(name), typeof content === 'string' ? content : JSON.stringify(content, null, 2));
    await write('policies/roles.json', ROLES);
    await write('policies/org-roles.json', ORG_ROLES);
    await write('in-org.json', IN_ORG);
    await write('policies/tests/a.json', PASSING);
    await write('policies/tests/b.json', MORE);
    await write('policies/tests/notes.txt', 'not a test file');
    await write('failing.json', FAILING);
    await write('policy.json', POLICY);
    await write('bad-allowed.json', {
      principals,
      tests: [{ principal: 'ann', action: 'read', subject: 'Report', allowed: 'yes' }],
    });
    await write('bad-roles.json', {
      principals: { ann: { roles: 'analyst' } },
      tests: [{ principal: 'ann', action: 'read', subject: 'Report', allowed: true }],
    });
    await write('bad-principal.json', {
      principals,
      tests: [PASSING.tests[0], { principal: 'zed', action: 'read', resource: 'north', allowed: true }],
    });
    await write('bad-several.json', {
      principals: { ann: { roles: 'analyst' } },
      tests: [
        { principal: 'ann', action: 'read', subject: 'Report', allowed: true },
        { principal: 'zed', action: 'read', subject: 'Report', allowed: true },
      ],
    });
    await write('bad-json.json', '{ "principals": ');

    // In this process, but --app (a module loads once per process) and the demo under tsx.
    const run =
      (...args: string[]) =>
      (): Promise<CliResult> =>
        (args.includes('--app') ? runCli : runCliInProcess)(['auth', 'test-policies', ...args]);
    Object.assign(
      results,
      await runBatch({
        others: {
          passing: run(file('policies/tests/a.json'), '--policies', policies),
          failing: run(file('failing.json'), '--policies', policies),
          inOrg: run(file('in-org.json'), '--policies', policies),
          defaults: () => runCliInProcess(['auth', 'test-policies'], { cwd: dir }),
          several: run(
            file('policies/tests/a.json'),
            file('failing.json'),
            file('policies/tests/b.json'),
            '--policies',
            policies,
          ),
          json: run(file('policies/tests/a.json'), file('failing.json'), '--policies', policies, '--json'),
          policyWithoutApp: run(file('policy.json'), '--policies', policies),
          badAllowed: run(file('bad-allowed.json'), '--policies', policies),
          badRoles: run(file('bad-roles.json'), '--policies', policies),
          badPrincipal: run(file('bad-principal.json'), '--policies', policies),
          badSeveral: run(file('bad-several.json'), '--policies', policies),
          badJson: run(file('policies/tests/a.json'), file('bad-json.json'), '--policies', policies),
          appAndPolicies: run(file('policies/tests/a.json'), '--app', 'demo/app.ts', '--policies', policies),
          demo: () =>
            runCli(['auth', 'test-policies', 'policies/tests/demo.json', '--app', 'demo/app.ts'], {
              runner: 'tsx',
              env: { SERVICE_AUTH_DATABASE_URL: database.url },
            }),
        },
      }),
    );
  });
  after(async () => {
    await rm(dir, { recursive: true, force: true });
    await database.remove();
  });

  it('prints only the totals, and exits 0, when every test passes', () => {
    expect(results['passing']).to.deep.equal({ code: 0, stdout: '2 passed, 0 failed\n', stderr: '' });
  });

  it('prints each failure with its principal, question, expected and actual decision and deciding rule, and exits 1', () => {
    const source = join(policies, 'roles.json');
    expect(results['failing']).to.deep.equal({
      code: 1,
      stdout: [
        `${file('failing.json')}:`,
        'FAIL tests[1] (south is readable) ann: read Report {"team":"south"}: expected allowed, was denied',
        '     no rule of the roles analyst grants it',
        'FAIL tests[2] ann: read Report {"team":"north"}: expected denied, was allowed',
        `     by role "analyst" (${source}): can read Report where {"team":"north"}`,
        '1 passed, 2 failed',
        '',
      ].join('\n'),
      stderr: '',
    });
  });

  it('asks in an organization for a principal that is a member of one, with the organization roles of the files', () => {
    expect(results['inOrg']).to.deep.equal({
      code: 1,
      stdout: [
        `${file('in-org.json')}:`,
        'FAIL tests[2] mia: update Project {"org_id":1,"lead_id":3}: expected denied, was allowed',
        `     by org role "editor" (${join(policies, 'org-roles.json')}): can update Project where {"lead_id":3,"org_id":1}`,
        '2 passed, 1 failed',
        '',
      ].join('\n'),
      stderr: '',
    });
  });

  it('runs every .json file of ./policies/tests against ./policies by default', () => {
    expect(results['defaults']).to.deep.equal({ code: 0, stdout: '5 passed, 0 failed\n', stderr: '' });
  });

  it('sums the totals of several files, and reports the failures of each', () => {
    const { code, stdout, stderr } = results['several']!;
    expect({ code, stderr }).to.deep.equal({ code: 1, stderr: '' });
    const lines = stdout.trimEnd().split('\n');
    expect(lines[0]).to.equal(`${file('failing.json')}:`);
    expect(lines.filter((line) => line.startsWith('FAIL '))).to.have.length(2);
    expect(lines.at(-1)).to.equal('6 passed, 2 failed');
  });

  it('--json prints the reports: file, passed, failed and results', () => {
    expect(results['json']!.code, results['json']!.stderr).to.equal(1);
    const reports = JSON.parse(results['json']!.stdout) as {
      file: string;
      passed: number;
      failed: number;
      results: Record<string, unknown>[];
    }[];
    expect(reports.map(({ file, passed, failed }) => ({ file, passed, failed }))).to.deep.equal([
      { file: file('policies/tests/a.json'), passed: 2, failed: 0 },
      { file: file('failing.json'), passed: 1, failed: 2 },
    ]);
    expect(reports[1]!.results).to.have.length(3);
    expect(reports[1]!.results[2]).to.deep.include({
      index: 2,
      principal: 'ann',
      roles: ['analyst'],
      action: 'read',
      subject: 'Report',
      fields: { team: 'north' },
      expected: false,
      actual: true,
      passed: false,
    });
    expect(reports[1]!.results[2]!['explanation']).to.deep.equal({
      allowed: true,
      rule: {
        role: 'analyst',
        index: 1,
        action: 'read',
        subject: 'Report',
        conditions: { team: 'north' },
        inverted: false,
        source: join(policies, 'roles.json'),
      },
    });
  });

  it('fails a policy test without --app: policies are code', () => {
    expect(results['policyWithoutApp']).to.deep.equal({
      code: 1,
      stdout: [
        `${file('policy.json')}:`,
        'FAIL tests[0] meg: policy is_self {"user_id":7}: no policy named "is_self" is defined (policies are code: load the application with --app)',
        '0 passed, 1 failed',
        '',
      ].join('\n'),
      stderr: '',
    });
  });

  describe('a malformed file: exit 2, naming the file and the JSON path of each problem', () => {
    const malformed = (name: string, path: string, ...problems: string[]) => {
      const result = results[name]!;
      expect(result.code, result.stderr).to.equal(2);
      expect(result.stdout).to.equal('');
      expect(result.stderr).to.match(new RegExp(`^Malformed policy test file ${escape(file(path))}:\n`));
      for (const problem of problems) expect(result.stderr).to.contain(`\n  ${problem}`);
    };

    it('a value of the wrong type in a test', () =>
      malformed('badAllowed', 'bad-allowed.json', '$.tests[0].allowed: '));
    it('a principal whose roles are not a list', () =>
      malformed('badRoles', 'bad-roles.json', '$.principals.ann.roles: '));
    it('a test of an unknown principal', () =>
      malformed('badPrincipal', 'bad-principal.json', '$.tests[1].principal: no principal named "zed"'));
    it('several problems, each named', () =>
      malformed(
        'badSeveral',
        'bad-several.json',
        '$.principals.ann.roles: ',
        '$.tests[1].principal: no principal named "zed"',
      ));
    it('invalid JSON, even after a good file', () => malformed('badJson', 'bad-json.json', 'not valid JSON ('));
  });

  it('exits 2 for --app with --policies', () => {
    expect(results['appAndPolicies']!.code).to.equal(2);
    expect(results['appAndPolicies']!.stderr).to.contain('Usage Error: --app and --policies cannot be used together');
  });

  it("passes the demo's own tests against the demo application", () => {
    expect(DEMO_TESTS).to.equal(25);
    expect(results['demo']).to.deep.equal({ code: 0, stdout: `${DEMO_TESTS} passed, 0 failed\n`, stderr: '' });
  });
});

describe('auth.testPolicies', () => {
  let t: TestApp;
  let dir: string;

  before(async () => {
    dir = await temporaryDirectory();
    await writeFile(join(dir, 'roles.json'), JSON.stringify(ROLES));
    t = await createTestApp();
    t.auth.loadPolicies(dir);
    t.auth.definePolicy('is_self', (user, { user_id }) => user.id === user_id);
  });
  after(async () => {
    await t.auth.close();
    await rm(dir, { recursive: true, force: true });
  });

  it("runs an object's tests against the application's roles and policies", () => {
    const report = t.auth.testPolicies({ ...FAILING, tests: [...FAILING.tests, ...POLICY.tests] });
    expect(report).to.have.keys('passed', 'failed', 'results', 'coverage');
    expect({ passed: report.passed, failed: report.failed }).to.deep.equal({ passed: 2, failed: 2 });
    expect(report.results.map((result) => result.passed)).to.deep.equal([true, false, false, true]);
    expect(report.results[3]).to.deep.include({
      policy: 'is_self',
      actual: true,
      explanation: { allowed: true, rule: null, policy: 'is_self' },
    });
  });

  it('throws a PolicyTestFileError naming the JSON path of each problem of a malformed object', () => {
    const object = { principals: { ann: { roles: 'analyst' } }, tests: [] };
    expect(() => t.auth.testPolicies(object))
      .to.throw(PolicyTestFileError)
      .that.deep.includes({ file: '(object)' })
      .and.has.property('problems')
      .that.deep.equals([
        '$.principals.ann.roles: Invalid input: expected array, received string',
        '$.tests: Too small: expected array to have >=1 items',
      ]);
  });
});

function escape(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
