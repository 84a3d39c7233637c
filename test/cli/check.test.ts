import { expect } from 'chai';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { createTestApp, PASSWORD, temporaryDatabase, temporaryDirectory, type TestApp } from '../helpers/app.js';
import { ROOT } from '../helpers/processes.js';
import { runBatch, runCli, type CliResult } from './cli-process.js';
import { runCliInProcess } from './in-process.js';

const USAGE_LINE = /\n\$ service-auth auth check /;

// A policies directory of our own: auditors read invoices, but not drafts (an inverted rule with a
// reason, after the rule it overrides), and approve those of owner 7 (a condition on a number).
const AUDITOR_RULES = {
  auditor: [
    { action: 'read', subject: 'Invoice' },
    {
      action: 'read',
      subject: 'Invoice',
      inverted: true,
      conditions: { status: 'draft' },
      reason: 'drafts are private',
    },
    { action: 'approve', subject: 'Invoice', conditions: { owner_id: 7 } },
  ],
  // Held by nobody: names User for the questions about users.
  selfie: [{ action: 'read', subject: 'User', conditions: { id: '${user.id}' } }],
};

// An organization role: editors update the invoices they own, in their organization.
// Keepers manage everything of their organization, which reaches no user (a User has no tenant field).
const ORG_RULES = {
  orgRoles: {
    editor: [{ action: 'update', subject: 'Invoice', conditions: { owner_id: '${user.id}' } }],
    keeper: [{ action: 'manage', subject: 'all' }],
  },
};

describe('CLI: auth check', () => {
  let database: Awaited<ReturnType<typeof temporaryDatabase>>;
  let dir: string;
  let ownPolicies: string;
  let appModule: string;
  let t: TestApp;
  const ids: Record<string, number> = {};
  const results: Record<string, CliResult> = {};

  before(async () => {
    database = await temporaryDatabase();
    dir = await temporaryDirectory();
    ownPolicies = join(dir, 'policies');
    await mkdir(ownPolicies);
    await writeFile(join(ownPolicies, 'roles.json'), JSON.stringify(AUDITOR_RULES, null, 2));
    await writeFile(join(ownPolicies, 'org-roles.json'), JSON.stringify(ORG_RULES, null, 2));
    // An application module as an operator's would be, for --app: its own role rules (the
    // directory above) and a named policy. It imports the built package and express by absolute URL.
    appModule = join(dir, 'app.mjs');
    await writeFile(
      appModule,
      [
        `import express from ${JSON.stringify(import.meta.resolve('express'))};`,
        `import { ServiceAuth } from ${JSON.stringify(pathToFileURL(join(ROOT, 'dist/src/index.js')).href)};`,
        'const app = express();',
        'const auth = new ServiceAuth(app);',
        `auth.loadPolicies(${JSON.stringify(ownPolicies)});`,
        "auth.definePolicy('is_self', (user, { user_id }) => user.id === user_id);",
        'export default app;',
        '',
      ].join('\n'),
    );

    t = await createTestApp({ SERVICE_AUTH_DATABASE_URL: database.url });
    for (const [email, roles] of [
      ['ann@example.com', ['analyst']],
      ['meg@example.com', ['member']],
      ['ida@example.com', ['auditor']],
      ['nob@example.com', []],
      ['kim@example.com', []],
    ] as const) {
      ids[email] = (await t.auth.users.create({ email, password: PASSWORD, roles: [...roles] })).id;
    }
    t.auth.defineOrgRole('editor', []);
    await t.auth.orgs.create({ name: 'Acme', slug: 'acme', owner: ids['ann@example.com']! });
    await t.auth.orgs.addMember('acme', ids['meg@example.com']!, ['editor']);
    t.auth.defineOrgRole('keeper', []);
    await t.auth.orgs.addMember('acme', ids['kim@example.com']!, ['keeper']);
    const kim = ['--email', 'kim@example.com', '--policies', ownPolicies, '--org', 'acme'];
    const meg = ['--email', 'meg@example.com', '--action', 'update', '--subject', 'Invoice', '--policies', ownPolicies];

    // --app in a process of its own: a module loads once per process, and its ServiceAuth closes with the command.
    const check =
      (...args: string[]) =>
      (): Promise<CliResult> =>
        (args.includes('--app') ? runCli : runCliInProcess)(['auth', 'check', ...args, '--database', database.url]);
    const ann = ['--email', 'ann@example.com'];
    const ida = ['--email', 'ida@example.com'];
    const invoices = [...ida, '--action', 'read', '--subject', 'Invoice'];
    const approve = [...ida, '--action', 'approve', '--subject', 'Invoice', '--policies', ownPolicies];
    Object.assign(
      results,
      await runBatch({
        others: {
          allowed: check(...ann, '--action', 'read', '--subject', 'Report', '--field', 'team=north'),
          deniedNoRule: check(...ann, '--action', 'read', '--subject', 'Report', '--field', 'team=south'),
          noRoles: check(
            '--email',
            'nob@example.com',
            '--action',
            'read',
            '--subject',
            'Report',
            '--field',
            'team=north',
          ),
          inverted: check(...invoices, '--field', 'status=draft', '--policies', ownPolicies),
          notInverted: check(...invoices, '--field', 'status=sent', '--policies', ownPolicies),
          number: check(...approve, '--field', 'owner_id=7'),
          notCanonical: check(...approve, '--field', 'owner_id=07'),
          placeholder: check(
            '--email',
            'meg@example.com',
            '--action',
            'read',
            '--subject',
            'User',
            '--field',
            `id=${ids['meg@example.com']}`,
          ),
          json: check(...ann, '--action', 'read', '--subject', 'Report', '--field', 'team=north', '--json'),
          jsonDenied: check(...ann, '--action', 'read', '--subject', 'Report', '--json'),
          unknownEmail: check('--email', 'nobody@example.com', '--action', 'read', '--subject', 'Report'),
          appRules: check(...invoices, '--field', 'status=draft', '--app', appModule),
          policyAllowed: check(
            ...ida,
            '--policy',
            'is_self',
            '--field',
            `user_id=${ids['ida@example.com']}`,
            '--app',
            appModule,
          ),
          policyDenied: check(
            ...ida,
            '--policy',
            'is_self',
            '--field',
            `user_id=${ids['ann@example.com']}`,
            '--app',
            appModule,
          ),
          policyNotCanonical: check(
            ...ida,
            '--policy',
            'is_self',
            '--field',
            `user_id=0${ids['ida@example.com']}`,
            '--app',
            appModule,
          ),
          policyJson: check(
            ...ida,
            '--policy',
            'is_self',
            '--field',
            `user_id=${ids['ida@example.com']}`,
            '--app',
            appModule,
            '--json',
          ),
          unknownPolicy: check(...ida, '--policy', 'no_such_policy', '--app', appModule),
          policyWithoutApp: check(...ida, '--policy', 'is_self'),
          noQuestion: check(...ann),
          subjectOnly: check(...ann, '--subject', 'Report'),
          policyAndAction: check(...ida, '--policy', 'is_self', '--action', 'read', '--app', appModule),
          fieldWithoutEquals: check(...ann, '--action', 'read', '--subject', 'Report', '--field', 'team'),
          appAndPolicies: check(
            ...ann,
            '--action',
            'read',
            '--subject',
            'Report',
            '--app',
            appModule,
            '--policies',
            ownPolicies,
          ),
          inOrg: check(...meg, '--field', `owner_id=${ids['meg@example.com']}`, '--org', 'acme'),
          inOrgJson: check(...meg, '--field', `owner_id=${ids['meg@example.com']}`, '--org', 'acme', '--json'),
          otherOrgsRow: check(
            ...meg,
            '--field',
            `owner_id=${ids['meg@example.com']}`,
            '--field',
            'org_id=2',
            '--org',
            'acme',
          ),
          outsideOrg: check(...meg, '--field', `owner_id=${ids['meg@example.com']}`),
          unknownOrg: check(...meg, '--org', 'nowhere'),
          orgRoleOnUser: check(
            ...kim,
            '--action',
            'update',
            '--subject',
            'User',
            '--field',
            `id=${ids['ann@example.com']}`,
          ),
          orgRoleOnInvoice: check(...kim, '--action', 'update', '--subject', 'Invoice'),
          typedNumber: check(...approve, '--field', 'owner_id:=7'),
          typedNull: check(...approve, '--field', 'owner_id:=null'),
          typedString: check(...invoices, '--field', 'status:="draft"', '--policies', ownPolicies),
          badJson: check(...approve, '--field', 'owner_id:=seven'),
          misspeltSubject: check(...ida, '--action', 'read', '--subject', 'Invoce', '--policies', ownPolicies),
          misspeltAction: check(...ida, '--action', 'aprove', '--subject', 'Invoice', '--policies', ownPolicies),
          missingPolicies: check(...ann, '--action', 'read', '--subject', 'Report', '--policies', join(dir, 'nowhere')),
        },
      }),
    );
  });
  after(async () => {
    await t.auth.close();
    await database.remove();
    await rm(dir, { recursive: true, force: true });
  });

  it('in an organization, an organization role reaches no User: no tenant field is stamped on it (issue 40)', () => {
    expect(results['orgRoleOnUser']!.code, results['orgRoleOnUser']!.stdout).to.equal(3);
    expect(results['orgRoleOnUser']!.stdout).to.match(/^denied\n/);
    expect(results['orgRoleOnInvoice']!.code, results['orgRoleOnInvoice']!.stdout).to.equal(0);
    expect(results['orgRoleOnInvoice']!.stdout).to.match(/^allowed\nby org role "keeper"/);
  });

  it('prints allowed and the deciding rule, its role and file, and exits 0', () => {
    expect(results['allowed']).to.deep.equal({
      code: 0,
      stdout: `allowed\nby role "analyst" (${join(ROOT, 'policies/roles.json')}): can read Report where {"team":"north"}\n`,
      stderr: '',
    });
  });

  it("prints denied and that no rule of the user's roles grants it, and exits 3", () => {
    expect(results['deniedNoRule']).to.deep.equal({
      code: 3,
      // Why not: the rule that could have allowed it, and the condition the subject fails.
      stdout: `denied\nno rule of the roles analyst grants it\nwhy not:\n  role "analyst", rule 1 (${join(ROOT, 'policies/roles.json')}): can read Report where {"team":"north"}\n    fails team $eq "north": the subject's team is "south"\n`,
      stderr: '',
    });
    expect(results['noRoles']).to.deep.equal({
      code: 3,
      stdout: 'denied\nno rule grants it: the user has no roles\n',
      stderr: '',
    });
  });

  it('names an inverted rule that denies, with its reason, from the --policies directory', () => {
    expect(results['inverted']).to.deep.equal({
      code: 3,
      stdout:
        `denied\nby role "auditor" (${join(ownPolicies, 'roles.json')}): cannot read Invoice where {"status":"draft"} (reason: "drafts are private")\n` +
        `why not:\n  role "auditor", rule 1 (${join(ownPolicies, 'roles.json')}): can read Invoice\n` +
        `    matches, but role "auditor", rule 2 (${join(ownPolicies, 'roles.json')}) refuses: cannot read Invoice where {"status":"draft"} (reason: "drafts are private")\n`,
      stderr: '',
    });
    expect(results['notInverted']).to.deep.equal({
      code: 0,
      stdout: `allowed\nby role "auditor" (${join(ownPolicies, 'roles.json')}): can read Invoice\n`,
      stderr: '',
    });
  });

  it('reads a --field value that is a canonical integer as a number, as URL parameters are', () => {
    expect(results['number']).to.deep.equal({
      code: 0,
      stdout: `allowed\nby role "auditor" (${join(ownPolicies, 'roles.json')}): can approve Invoice where {"owner_id":7}\n`,
      stderr: '',
    });
    // "07" is not how 7 is written: it stays a string, and the condition on the number fails.
    expect(results['notCanonical']).to.deep.include({ code: 3, stderr: '' });
    expect(results['notCanonical']!.stdout).to.match(
      /^denied\nno rule of the roles auditor grants it\nwhy not:\n.*\n    fails owner_id \$eq 7: the subject's owner_id is "07"\n$/,
    );
    // A ${user.id} placeholder compares with the number the user's id is.
    const meg = ids['meg@example.com'];
    expect(results['placeholder']).to.deep.equal({
      code: 0,
      stdout: `allowed\nby role "member" (${join(ROOT, 'policies/roles.json')}): can read User where {"id":${meg}}\n`,
      stderr: '',
    });
  });

  it('--json prints the explanation with the email', () => {
    expect(results['json']!.code, results['json']!.stderr).to.equal(0);
    expect(JSON.parse(results['json']!.stdout)).to.deep.equal({
      email: 'ann@example.com',
      allowed: true,
      rule: {
        role: 'analyst',
        index: 1,
        action: 'read',
        subject: 'Report',
        conditions: { team: 'north' },
        inverted: false,
        source: join(ROOT, 'policies/roles.json'),
      },
    });
    expect(results['jsonDenied']!.code, results['jsonDenied']!.stderr).to.equal(3);
    const denied = JSON.parse(results['jsonDenied']!.stdout);
    expect(denied).to.deep.include({ email: 'ann@example.com', allowed: false, rule: null });
    expect(
      denied.why_not.map(({ rule, failed }: { rule: { role: string; index: number }; failed: unknown }) => [
        rule.role,
        rule.index,
        failed,
      ]),
    ).to.deep.equal([['analyst', 1, { field: 'team', operator: '$eq', expected: 'north', missing: true }]]);
  });

  it("asks in an organization with --org: the membership's organization roles, the subject in the organization", () => {
    const source = join(ownPolicies, 'org-roles.json');
    const rule = `by org role "editor" (${source}): can update Invoice where {"owner_id":${ids['meg@example.com']},"org_id":1}`;
    expect(results['inOrg']).to.deep.equal({ code: 0, stdout: `allowed\n${rule}\n`, stderr: '' });
    expect(JSON.parse(results['inOrgJson']!.stdout)).to.deep.include({
      email: 'meg@example.com',
      org: 'acme',
      allowed: true,
    });
    expect(JSON.parse(results['inOrgJson']!.stdout).rule).to.include({ role: 'editor', org_role: true });
    // Another organization's invoice, and outside every organization: no rule of hers grants it.
    expect(results['otherOrgsRow']).to.deep.equal({
      code: 3,
      stdout: `denied\nno rule of the roles member, editor grants it\nwhy not:\n  org role "editor", rule 1 (${source}): can update Invoice where {"owner_id":${ids['meg@example.com']},"org_id":1}\n    fails org_id $eq 1: the subject's org_id is 2\n`,
      stderr: '',
    });
    expect(results['outsideOrg']!.code).to.equal(3);
    expect(results['unknownOrg']).to.deep.include({ code: 1, stdout: '' });
    expect(results['unknownOrg']!.stderr).to.contain('Unknown organization: no organization "nowhere"');
  });

  it('fails with exit 1 on an unknown email', () => {
    expect(results['unknownEmail']).to.deep.equal({
      code: 1,
      stdout: '',
      stderr: 'Unknown email: no user with email nobody@example.com\n',
    });
  });

  it('takes the role rules from the application with --app', () => {
    expect(results['appRules']).to.deep.equal({
      code: 3,
      stdout:
        `denied\nby role "auditor" (${join(ownPolicies, 'roles.json')}): cannot read Invoice where {"status":"draft"} (reason: "drafts are private")\n` +
        `why not:\n  role "auditor", rule 1 (${join(ownPolicies, 'roles.json')}): can read Invoice\n` +
        `    matches, but role "auditor", rule 2 (${join(ownPolicies, 'roles.json')}) refuses: cannot read Invoice where {"status":"draft"} (reason: "drafts are private")\n`,
      stderr: '',
    });
  });

  it('takes typed --field values after := (JSON), a plain = staying as before', () => {
    expect(results['typedNumber']).to.include({ code: 0 });
    expect(results['typedNull']).to.include({ code: 3 });
    expect(results['typedNull']!.stdout).to.contain(`    fails owner_id $eq 7: the subject's owner_id is null\n`);
    expect(results['typedString']!.stdout).to.match(
      /^denied\nby role "auditor" .*cannot read Invoice where \{"status":"draft"\}/,
    );
  });

  it("asks the application's named policy with --policy: allowed 0, denied 3, unknown policy 1", () => {
    expect(results['policyAllowed']).to.deep.equal({ code: 0, stdout: 'allowed\nby policy "is_self"\n', stderr: '' });
    expect(results['policyDenied']).to.deep.equal({ code: 3, stdout: 'denied\nby policy "is_self"\n', stderr: '' });
    expect(results['policyNotCanonical']).to.deep.equal({
      code: 3,
      stdout: 'denied\nby policy "is_self"\n',
      stderr: '',
    });
    expect(results['policyJson']!.code, results['policyJson']!.stderr).to.equal(0);
    expect(JSON.parse(results['policyJson']!.stdout)).to.deep.equal({
      email: 'ida@example.com',
      allowed: true,
      rule: null,
      policy: 'is_self',
    });
    expect(results['unknownPolicy']).to.deep.equal({
      code: 1,
      stdout: '',
      stderr: 'Unknown policy: the application defines no policy named "no_such_policy"\n',
    });
  });

  it('exits 2 on usage errors, saying what is wrong', () => {
    const usage = (name: string, message: string) => {
      expect(results[name]!.code, name).to.equal(2);
      expect(results[name]!.stdout, name).to.equal('');
      expect(results[name]!.stderr, name).to.contain(`Usage Error: ${message}`);
    };
    usage('policyWithoutApp', '--policy needs --app: a named policy is code, which only the application has');
    usage('noQuestion', '--action is required (or --policy)');
    usage('subjectOnly', '--action is required (or --policy)');
    usage('policyAndAction', '--policy and --action cannot be used together');
    usage('fieldWithoutEquals', '--field "team" is not key=value or key:=JSON');
    usage('appAndPolicies', '--app and --policies cannot be used together');
    usage('badJson', '--field "owner_id:=seven": the value after := is not JSON');
    // A misspelt name would only ever be denied: a usage error naming the closest known one.
    usage('misspeltSubject', 'no rule of any role names the subject type "Invoce"; did you mean "Invoice"?');
    usage('misspeltAction', 'no rule of any role names the action "aprove"; did you mean "approve"?');
    expect(results['policyWithoutApp']!.stderr).to.match(USAGE_LINE);
  });

  it('fails with exit 1 when the policies directory does not exist, naming it', () => {
    expect(results['missingPolicies']).to.deep.equal({
      code: 1,
      stdout: '',
      stderr: `No policies directory ${join(dir, 'nowhere')}: give one with --policies, or the application with --app\n`,
    });
  });
});
