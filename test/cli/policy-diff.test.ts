/**
 * `auth policy diff OLD NEW` (CONTRACT-3 §22): files, directories and `git:REF:PATH` (against a
 * temporary git repository), the report and its witnesses, `--json`, the exit status (0 no
 * change, 1 changes, `--fail-on grants`, 2 usage), and `--app` with the status as a shell sees it.
 */
import { expect } from 'chai';
import { execFileSync } from 'node:child_process';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { temporaryDirectory } from '../helpers/app.js';
import { ROOT } from '../helpers/processes.js';
import { runCli } from './cli-process.js';
import { runCliInProcess } from './in-process.js';

const OLD = {
  roles: {
    editor: [
      { action: 'read', subject: 'Post' },
      { action: 'update', subject: 'Post', conditions: { author_id: '${user.id}' }, fields: ['title'] },
    ],
  },
  orgRoles: { member: [{ action: 'read', subject: 'Task', conditions: { assignee_id: '${user.id}' } }] },
};
/** Reads only published posts, updates bodies too, reads every task of the organization. */
const NEW = {
  roles: {
    editor: [
      { action: 'read', subject: 'Post', conditions: { published: true } },
      { action: 'update', subject: 'Post', conditions: { author_id: '${user.id}' }, fields: ['title', 'body'] },
    ],
  },
  orgRoles: { member: [{ action: 'read', subject: 'Task' }] },
};

describe('auth policy diff', () => {
  let dir: string;
  const git = (...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=Test', '-c', 'user.email=test@example.com', ...args], {
      cwd: dir,
      stdio: 'pipe',
    });
  const diff = (...args: string[]) => runCliInProcess(['auth', 'policy', 'diff', ...args], { cwd: dir });

  before(async () => {
    dir = await temporaryDirectory();
    await mkdir(join(dir, 'policies'));
    await writeFile(join(dir, 'policies', 'roles.json'), JSON.stringify(OLD));
    await writeFile(join(dir, 'policies', 'notes.txt'), 'not a policy file');
    git('init', '-q');
    git('add', '.');
    git('commit', '-qm', 'policies');
    await writeFile(join(dir, 'policies', 'roles.json'), JSON.stringify(NEW));
    await writeFile(join(dir, 'old.json'), JSON.stringify(OLD));
    await writeFile(join(dir, 'broken.json'), JSON.stringify({ roles: { editor: [{ action: 'read' }] } }));
  });
  after(() => rm(dir, { recursive: true, force: true }));

  it('prints each change with its witness, role by role, and exits 1', async () => {
    const { code, stdout, stderr } = await diff('old.json', 'policies');
    expect(stderr).to.equal('');
    const lines = stdout.trim().split('\n');
    expect(lines.filter((line) => !line.startsWith('      e.g.'))).to.deep.equal([
      'role editor',
      '  - read Post',
      '  + update Post, fields body',
      'org role member',
      '  + read Task',
      '3 changes: 2 grants, 1 revoke',
    ]);
    expect(lines[2]).to.equal(
      '      e.g. Post {"published":false}, user {"id":1,"email":"ann@example.com","is_admin":false}',
    );
    expect(lines[7]).to.match(/^ {6}e\.g\. Task \{.*"org_id":(\d+).*\}, user \{.*\}, org \{"id":\1,"slug":"acme"\}$/);
    expect(code).to.equal(1);
  });

  it('reads git:REF:PATH, a directory or a file, and says no change with exit 0', async () => {
    expect(await diff('git:HEAD:policies', 'old.json')).to.deep.include({
      code: 0,
      stdout: 'No change: every role decides every subject as before.\n',
    });
    expect(await diff('git:HEAD:policies/roles.json', 'git:HEAD:policies')).to.deep.include({ code: 0 });
    const { code, stdout } = await diff('git:HEAD:policies', 'policies', '--json');
    expect(code).to.equal(1);
    const report = JSON.parse(stdout) as { changes: Record<string, unknown>[]; not_analysed: unknown[] };
    expect(report.not_analysed).to.deep.equal([]);
    expect(
      report.changes.map(({ role, org_role, action, subject, fields, change }) => ({
        role,
        org_role,
        action,
        subject,
        fields,
        change,
      })),
    ).to.deep.equal([
      { role: 'editor', org_role: null, action: 'read', subject: 'Post', fields: null, change: 'revoke' },
      { role: 'editor', org_role: null, action: 'update', subject: 'Post', fields: ['body'], change: 'grant' },
      { role: null, org_role: 'member', action: 'read', subject: 'Task', fields: null, change: 'grant' },
    ]);
    expect(report.changes[0]!['witness']).to.deep.equal({
      subject: { published: false },
      user: { id: 1, email: 'ann@example.com', is_admin: false },
    });
  });

  it('--fail-on grants fails only on what is newly allowed', async () => {
    expect(
      (await diff('policies', 'old.json', '--fail-on', 'grants')).code,
      'NEW to OLD revokes the grants, grants published posts back',
    ).to.equal(1);
    await writeFile(
      join(dir, 'narrower.json'),
      JSON.stringify({ roles: { editor: [OLD.roles.editor[1]] }, orgRoles: OLD.orgRoles }),
    );
    const { code, stdout } = await diff('old.json', 'narrower.json', '--fail-on', 'grants');
    expect(stdout).to.contain('  - read Post');
    expect(code).to.equal(0);
  });

  it('exits 2 for a usage error or a side it cannot read, naming it', async () => {
    expect(await diff('old.json')).to.deep.include({ code: 2 });
    expect(await diff('old.json', 'policies', '--fail-on', 'everything')).to.deep.include({ code: 2 });
    const missing = await diff('old.json', 'nowhere.json');
    expect(missing).to.deep.include({ code: 2, stdout: '' });
    expect(missing.stderr).to.contain('No policy file or directory nowhere.json');
    const broken = await diff('old.json', 'broken.json');
    expect(broken.code).to.equal(2);
    expect(broken.stderr).to.contain('broken.json').and.contain('$.roles.editor[0].subject');
    const badRef = await diff('git:no-such-ref:policies', 'policies');
    expect(badRef.code).to.equal(2);
    expect(badRef.stderr).to.contain('Cannot read git:no-such-ref:policies from git');
    expect((await diff('git:HEAD', 'policies')).stderr).to.contain('expected git:REF:PATH');
  });

  it('--app adds the roles defined in code and lists named policies as not analysed; the shell sees exit 1', async () => {
    const appModule = join(dir, 'app.mjs');
    await writeFile(
      appModule,
      [
        `import express from ${JSON.stringify(import.meta.resolve('express'))};`,
        `import { ServiceAuth } from ${JSON.stringify(pathToFileURL(join(ROOT, 'dist/src/index.js')).href)};`,
        'const app = express();',
        'const auth = new ServiceAuth(app);',
        "auth.defineRole('reviewer', [{ action: 'read', subject: 'Invoice' }]);",
        "auth.definePolicy('is_self', (user, { user_id }) => user.id === user_id);",
        'export default app;',
        '',
      ].join('\n'),
    );
    // The file narrows the application's reviewer: without the application it would be a grant.
    await writeFile(
      join(dir, 'reviewer.json'),
      JSON.stringify({ reviewer: [{ action: 'read', subject: 'Invoice', conditions: { status: 'sent' } }] }),
    );
    await writeFile(join(dir, 'empty.json'), '{}');
    const { code, stdout } = await runCli(
      [
        'auth',
        'policy',
        'diff',
        'empty.json',
        'reviewer.json',
        '--app',
        appModule,
        '--database',
        'sqlite::memory:',
        '--json',
      ],
      { cwd: dir },
    );
    const report = JSON.parse(stdout) as { changes: { role: string; change: string }[]; not_analysed: unknown[] };
    expect(report.changes.map(({ role, change }) => `${role} ${change}`)).to.deep.equal(['reviewer revoke']);
    expect(report.not_analysed).to.deep.equal([
      { role: null, org_role: null, action: 'satisfy', subject: 'is_self', reason: 'a named policy is code' },
    ]);
    expect(code).to.equal(1);
  });

  it("--app gives a witness values of the entities' column types: a number for a number column, a list for a list field", async () => {
    const appModule = join(dir, 'typed-app.mjs');
    await writeFile(
      appModule,
      [
        `import express from ${JSON.stringify(import.meta.resolve('express'))};`,
        `import { defineEntity } from ${JSON.stringify(import.meta.resolve('@mikro-orm/core'))};`,
        `import { ServiceAuth } from ${JSON.stringify(pathToFileURL(join(ROOT, 'dist/src/index.js')).href)};`,
        'const p = defineEntity.properties;',
        'export const entities = [',
        "  defineEntity({ name: 'Invoice', properties: { id: p.integer().primary(), status: p.string(), amount: p.integer() } }),",
        "  defineEntity({ name: 'Account', properties: { id: p.integer().primary(), roles: p.array() } }),",
        '];',
        'const app = express();',
        'new ServiceAuth(app);',
        'export default app;',
        '',
      ].join('\n'),
    );
    const limited = { status: 'pending', amount: { $lte: '${user.approval_limit}' } };
    const approve = { action: 'approve', subject: 'Invoice', conditions: limited };
    const admins = { action: 'read', subject: 'Account', conditions: { roles: 'admin' } };
    const file = { userAttributes: ['approval_limit'], roles: { approver: [approve, admins] } };
    await writeFile(join(dir, 'approver.json'), JSON.stringify(file));
    const args = ['auth', 'policy', 'diff', 'empty.json', 'approver.json', '--database', 'sqlite::memory:', '--json'];
    const witnesses = async (...more: string[]) => {
      const { stdout } = await runCli([...args, ...more], { cwd: dir });
      type Change = { subject: string; witness: { subject: object; user: { attributes?: object } } };
      const { changes } = JSON.parse(stdout) as { changes: Change[] };
      return changes.map(({ subject, witness }) => ({
        subject,
        fields: witness.subject,
        attributes: witness.user.attributes,
      }));
    };
    // The application's types: `amount` and the limit it is compared with are numbers, `roles` a list.
    expect(await witnesses('--app', appModule)).to.deep.equal([
      { subject: 'Invoice', fields: { status: 'pending', amount: 1 }, attributes: { approval_limit: 1 } },
      { subject: 'Account', fields: { roles: ['admin'] }, attributes: { approval_limit: 1 } },
    ]);
    // Without them, any value that makes the difference.
    expect(await witnesses()).to.deep.equal([
      {
        subject: 'Invoice',
        fields: { status: 'pending', amount: 'pending' },
        attributes: { approval_limit: 'pending' },
      },
      { subject: 'Account', fields: { roles: 'admin' }, attributes: { approval_limit: 'value-1' } },
    ]);
  });
});
