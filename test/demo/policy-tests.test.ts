/**
 * The demo's policy tests (policies/tests/*.json) run against the demo application's own roles
 * and policy, as `auth.testPolicies` in an application's test suite would run them: demo.json for
 * the global roles and the named policy, projects.json for the project tracker's organization
 * roles, asked as owners, admins, members and viewers of two organizations.
 */
import { readFileSync } from 'node:fs';
import { expect } from 'chai';
import type { ServiceAuth } from '../../src/index.js';

const file = (name: string) => new URL(`../../policies/${name}`, import.meta.url).pathname;

interface Rule {
  action: string | string[];
  subject: string | string[];
  fields?: string[];
}

describe("the demo's policy tests", () => {
  let auth: ServiceAuth;
  const previous = process.env['SERVICE_AUTH_DATABASE_URL'];
  before(async () => {
    // The demo builds its ServiceAuth as its module loads: on a database in memory, not ./service-auth.sqlite.
    process.env['SERVICE_AUTH_DATABASE_URL'] = 'sqlite::memory:';
    ({ auth } = await import('../../demo/app.js'));
    auth.logger = { info: () => undefined, warn: () => undefined, error: () => undefined };
  });
  after(async () => {
    if (previous === undefined) delete process.env['SERVICE_AUTH_DATABASE_URL'];
    else process.env['SERVICE_AUTH_DATABASE_URL'] = previous;
    await auth?.close();
  });

  it('all pass, covering every role of the demo and its policy', () => {
    const report = auth.testPolicies(file('tests/demo.json'));
    expect(report.results.filter((result) => !result.passed)).to.deep.equal([]);
    const covered = new Set(
      report.results.flatMap((result) => (result.policy ? [`policy ${result.policy}`] : result.roles)),
    );
    expect([...covered].sort()).to.deep.equal(['admin', 'analyst', 'member', 'policy is_self_or_admin']);
  });

  describe('the project tracker (projects.json)', () => {
    const tests = JSON.parse(readFileSync(file('tests/projects.json'), 'utf8')) as {
      principals: Record<string, { org: { slug: string; roles: string[] } }>;
    };
    const orgRoles = (JSON.parse(readFileSync(file('roles.json'), 'utf8')) as { orgRoles: Record<string, Rule[]> })
      .orgRoles;

    it('all pass', () => {
      const report = auth.testPolicies(file('tests/projects.json'));
      expect(report.failed).to.equal(0);
      expect(report.results.filter((result) => !result.passed)).to.deep.equal([]);
    });

    it('ask as owners, admins, members and viewers of two organizations', () => {
      const asked = Object.values(tests.principals).map(({ org }) => `${org.slug} ${org.roles.join()}`);
      expect(asked.sort()).to.deep.equal([
        'acme admin',
        'acme member',
        'acme owner',
        'acme viewer',
        'globex admin',
        'globex member',
        'globex owner',
        'globex viewer',
      ]);
    });

    it('grant by every rule of every organization role, in each organization, and see each role refused somewhere', () => {
      const report = auth.testPolicies(file('tests/projects.json'));
      const list = (value: string | string[] | undefined) =>
        value === undefined ? [] : Array.isArray(value) ? value : [value];
      for (const [role, rules] of Object.entries(orgRoles)) {
        for (const org of ['acme', 'globex']) {
          const ofRole = report.results.filter(
            (result) =>
              tests.principals[result.principal]!.org.slug === org &&
              tests.principals[result.principal]!.org.roles.includes(role),
          );
          expect(
            ofRole.some((result) => !result.expected),
            `${role} in ${org}: some test expects a refusal`,
          ).to.equal(true);
          rules.forEach((rule, index) => {
            // The package binds a rule to the organization (manage all becomes two rules): the
            // deciding rule is the role's, with the rule's action and fields, on one of its subjects.
            const decidedBy = ofRole.filter(
              ({ explanation: { allowed, rule: decided } }) =>
                allowed &&
                decided?.role === role &&
                decided.org_role === true &&
                JSON.stringify(decided.action) === JSON.stringify(rule.action) &&
                JSON.stringify(list(decided.fields)) === JSON.stringify(list(rule.fields)) &&
                list(decided.subject).every((type) => list(rule.subject).includes(type) || rule.subject === 'all'),
            );
            expect(
              decidedBy,
              `org role ${role}, rule ${index + 1} in ${org}: no test is allowed by it`,
            ).not.to.deep.equal([]);
          });
        }
      }
    });
  });
});
