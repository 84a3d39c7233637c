/**
 * The demo's policy tests (policies/tests/demo.json) run against the demo application's own roles
 * and policy, as `auth.testPolicies` in an application's test suite would run them.
 */
import { expect } from 'chai';
import type { ServiceAuth } from '../../src/index.js';

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
    const report = auth.testPolicies(new URL('../../policies/tests/demo.json', import.meta.url).pathname);
    expect(report.results.filter((result) => !result.passed)).to.deep.equal([]);
    const covered = new Set(report.results.flatMap((result) => (result.policy ? [`policy ${result.policy}`] : result.roles)));
    expect([...covered].sort()).to.deep.equal(['admin', 'analyst', 'member', 'policy is_self_or_admin']);
  });
});
