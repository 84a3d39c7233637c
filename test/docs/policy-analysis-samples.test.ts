/**
 * The sample outputs of docs/policy-analysis.md, and the README's failing policy test, are what
 * the commands print now: each ```sh block that begins `npx service-auth …` is run in this process
 * (test/cli/in-process.ts) from the repository's root, on the demo's own policies, and its `# `
 * lines must be the command's output. The copies the samples compare with are made as the page
 * says: `changed.json` and `narrowed.json` from policies/roles.json, `lint.json` and the README's
 * test file from the page's own JSON blocks. Only what varies between machines is normalised:
 * the temporary directory and the repository's absolute path, which the commands print.
 */
import { expect } from 'chai';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCliInProcess } from '../cli/in-process.js';
import { createTestApp, PASSWORD, temporaryDatabase, type TestApp } from '../helpers/app.js';
import { ROOT } from '../helpers/processes.js';
import { codeBlocks, type CodeBlock } from './code-blocks.js';

type Json = Record<string, any>;

interface Sample {
  document: string;
  line: number;
  args: string[];
  output: string;
}

/** The `npx service-auth …` blocks of a document, with the output their `# ` lines show. */
function samples(document: string, blocks: CodeBlock[]): Sample[] {
  return blocks
    .filter((block) => block.info === 'sh' && block.code.startsWith('npx service-auth ') && block.code.includes('\n# '))
    .map((block) => {
      const [command, ...lines] = block.code.trimEnd().split('\n');
      return {
        document,
        line: block.line,
        args: command!.replace('npx service-auth ', '').split(' '),
        output: lines.map((line) => line.replace(/^# ?/, '')).join('\n'),
      };
    });
}

/** The JSON block that follows the first place the text appears. */
function jsonAfter(markdown: string, blocks: CodeBlock[], text: string): string {
  const at = markdown.split('\n').findIndex((line) => line.includes(text));
  const block = blocks.find((candidate) => candidate.info === 'json' && candidate.line > at + 1);
  if (at < 0 || !block) throw new Error(`no JSON block after ${text}`);
  return block.code;
}

describe('docs: the sample outputs of docs/policy-analysis.md and the README are what the commands print', () => {
  let dir: string;
  let database: Awaited<ReturnType<typeof temporaryDatabase>>;
  let t: TestApp;
  let page: string;
  let readme: string;
  const files: Record<string, string> = {};

  before(async () => {
    dir = await mkdtemp(join(tmpdir(), 'service-auth-doc-samples-'));
    [page, readme] = await Promise.all([
      readFile(join(ROOT, 'docs/policy-analysis.md'), 'utf8'),
      readFile(join(ROOT, 'README.md'), 'utf8'),
    ]);
    const roles = JSON.parse(await readFile(join(ROOT, 'policies/roles.json'), 'utf8')) as Json;
    // changed.json: the organization role member updates the tasks of the projects it is on.
    const changed = structuredClone(roles);
    changed['orgRoles'].member.find(
      (rule: Json) => rule['action'] === 'update' && rule['subject'] === 'Task',
    ).conditions = { 'project.members.user_id': '${user.id}' };
    // narrowed.json: the analysts' reports, those not archived.
    const narrowed = structuredClone(roles);
    narrowed['roles'].analyst.rules[0].conditions = { team: 'north', archived: { $ne: true } };
    const pageBlocks = codeBlocks(page);
    const contents: Record<string, string> = {
      'changed.json': JSON.stringify(changed, null, 2),
      'narrowed.json': JSON.stringify(narrowed, null, 2),
      'lint.json': jsonAfter(page, pageBlocks, 'A file with some mistakes, `lint.json`'),
      'policies/tests/reports.json': jsonAfter(readme, codeBlocks(readme), 'A test that expects too much'),
    };
    for (const [name, content] of Object.entries(contents)) {
      files[name] = join(dir, name.replaceAll('/', '-'));
      await writeFile(files[name], content);
    }
    // Ann, an analyst, for `auth check`.
    database = await temporaryDatabase();
    t = await createTestApp({ SERVICE_AUTH_DATABASE_URL: database.url });
    await t.auth.users.create({ email: 'ann@example.com', password: PASSWORD, roles: ['analyst'] });
  });

  after(async () => {
    await t?.auth.close();
    await database?.remove();
    await rm(dir, { recursive: true, force: true });
  });

  /** Runs the sample's command from the repository's root, the copies in the temporary directory. */
  async function run(sample: Sample): Promise<string> {
    const args = sample.args.map((arg) => files[arg] ?? arg);
    const { stdout, stderr } = await runCliInProcess(args, {
      cwd: ROOT,
      env: { SERVICE_AUTH_DATABASE_URL: args.includes('check') ? database.url : 'sqlite::memory:' },
    });
    const normalised = stdout.replaceAll(`${dir}/`, '').replaceAll(join(ROOT, '/'), '');
    const reverse = Object.fromEntries(Object.entries(files).map(([name, path]) => [path.slice(dir.length + 1), name]));
    return normalised.replace(/[\w.-]+\.json/g, (name) => reverse[name] ?? name).trimEnd() || stderr.trimEnd();
  }

  it('every sample of docs/policy-analysis.md', async () => {
    const found = samples('docs/policy-analysis.md', codeBlocks(page));
    const commands = found.map(({ args }) => args.join(' '));
    for (const command of ['auth policy diff', 'auth policy lint', 'auth test-policies', 'auth check'])
      expect(
        commands.some((line) => line.startsWith(command)),
        command,
      ).to.equal(true);
    for (const sample of found)
      expect(
        await run(sample),
        `${sample.document}:${sample.line}: npx service-auth ${sample.args.join(' ')}`,
      ).to.equal(sample.output);
  });

  it("the --json sample, and the README's failing policy test", async () => {
    const json = {
      document: 'docs/policy-analysis.md',
      line: 0,
      args: 'auth policy diff policies/roles.json narrowed.json --json'.split(' '),
      output: '',
    };
    expect(JSON.parse(await run(json))).to.deep.equal(
      JSON.parse(
        jsonAfter(
          page,
          codeBlocks(page),
          '`npx service-auth auth policy diff policies/roles.json narrowed.json --json` prints',
        ),
      ),
    );
    const [test] = samples('README.md', codeBlocks(readme)).filter(({ args }) => args[1] === 'test-policies');
    expect(await run(test!), 'README.md: the failing policy test').to.equal(test!.output);
  });
});
