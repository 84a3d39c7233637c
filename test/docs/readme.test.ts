/**
 * The code a reader copies compiles: every ```ts block of README.md and docs/*.md is written as a
 * module of its own into a temporary project, which resolves `service-auth`, `service-auth/cli` and `service-auth/client`
 * to the built declarations in dist/ (`npm test` builds first) and everything else (express,
 * @casl/ability, @types/node, …) from this repository's node_modules, and the repository's
 * TypeScript checks them all in one run. A block that augments the package (`declare module
 * 'service-auth'`, as typed abilities do) changes its types for every module of a program, so each
 * such block is checked in a run of its own. A block fenced ```ts fragment is left out; the README
 * has none, so its quick start compiles as it stands.
 */
import { expect } from 'chai';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { MIKRO_ORM_MAJOR } from '../helpers/orm.js';
import { ROOT } from '../helpers/processes.js';
import { codeBlocks, mikroOrmMajorOf, typeScriptKind, type CodeBlock } from './code-blocks.js';

const DECLARATIONS = {
  'service-auth': join(ROOT, 'dist/src/index.d.ts'),
  'service-auth/cli': join(ROOT, 'dist/cli/commands/index.d.ts'),
  'service-auth/client': join(ROOT, 'dist/src/client/index.d.ts'),
};

/** README.md, then docs/*.md by name. */
function documents(): string[] {
  const docs = existsSync(join(ROOT, 'docs'))
    ? readdirSync(join(ROOT, 'docs'))
        .filter((file) => file.endsWith('.md'))
        .sort()
    : [];
  return ['README.md', ...docs.map((file) => `docs/${file}`)];
}

interface Placed extends CodeBlock {
  document: string;
  /** The module's file name in the temporary project. */
  file: string;
}

function blocksOf(document: string): (CodeBlock & { kind: ReturnType<typeof typeScriptKind> })[] {
  return codeBlocks(readFileSync(join(ROOT, document), 'utf8')).map((block) => ({
    ...block,
    kind: typeScriptKind(block),
  }));
}

/** Checks the blocks with one tsc run; returns its diagnostics, each naming the document and line. */
function typeCheck(blocks: Placed[]): string[] {
  const dir = mkdtempSync(join(tmpdir(), 'service-auth-docs-'));
  try {
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ private: true, type: 'module' }));
    // `paths` maps the package to its declarations; the packages it and the blocks import come from
    // the repository's node_modules through a link (a `paths` entry cannot follow their `exports`).
    symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'), 'junction');
    const compilerOptions = {
      target: 'ES2022',
      module: 'NodeNext',
      moduleResolution: 'NodeNext',
      strict: true,
      noEmit: true,
      skipLibCheck: true,
      types: ['node'],
      typeRoots: [join(ROOT, 'node_modules/@types')],
      baseUrl: dir,
      paths: Object.fromEntries(Object.entries(DECLARATIONS).map(([name, path]) => [name, [path]])),
    };
    writeFileSync(
      join(dir, 'tsconfig.json'),
      JSON.stringify({ compilerOptions, files: blocks.map((block) => block.file) }, null, 2),
    );
    for (const block of blocks) writeFileSync(join(dir, block.file), block.code);
    const tsc = spawnSync(
      process.execPath,
      [join(ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir, '--pretty', 'false'],
      { encoding: 'utf8' },
    );
    if (tsc.error) throw tsc.error;
    return located(`${tsc.stdout}${tsc.stderr}`, blocks);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** tsc's diagnostics, with `<file>(line,col)` turned into the document's own line and column. */
function located(output: string, blocks: Placed[]): string[] {
  const byFile = new Map(blocks.map((block) => [block.file, block]));
  const diagnostics: string[] = [];
  for (const line of output.split('\n')) {
    if (line.trim() === '') continue;
    const match = /^(.+?)\((\d+),(\d+)\): (.*)$/.exec(line);
    const block = match ? byFile.get(match[1]!.replace(/^.*[\\/]/, '')) : undefined;
    if (match && block) {
      diagnostics.push(
        `${block.document}:${block.line + Number(match[2]) - 1}:${match[3]} (the block starting at line ${block.line}): ${match[4]}`,
      );
    } else if (/^\s/.test(line) && diagnostics.length > 0) {
      diagnostics[diagnostics.length - 1] += `\n${line}`; // a message's continuation
    } else {
      diagnostics.push(line);
    }
  }
  return diagnostics;
}

describe('the code in the documentation', function () {
  this.timeout(120_000);

  it('type-checks every ```ts block of README.md and docs/*.md against the built package', function () {
    for (const path of Object.values(DECLARATIONS))
      expect(existsSync(path), `${path} (npm test builds dist/ first; else npm run build)`).to.equal(true);
    const blocks: Placed[] = documents().flatMap((document) =>
      blocksOf(document)
        .filter((block) => block.kind === 'module' && (mikroOrmMajorOf(block) ?? MIKRO_ORM_MAJOR) === MIKRO_ORM_MAJOR)
        .map((block) => ({
          ...block,
          document,
          file: `${document.replace(/\.md$/, '').replace(/[^A-Za-z0-9]+/g, '-')}-L${block.line}.ts`,
        })),
    );
    expect(blocks.length, 'TypeScript blocks found').to.be.above(0);
    const augmenting = (block: Placed) => /declare\s+module\s+['"]service-auth['"]/.test(block.code);
    const runs = [blocks.filter((block) => !augmenting(block)), ...blocks.filter(augmenting).map((block) => [block])];
    expect(runs.flatMap(typeCheck)).to.deep.equal([]);
  });

  it("checks the README's quick start as it stands: no README block is a fragment", () => {
    const blocks = blocksOf('README.md').filter((block) => block.kind !== undefined);
    expect(blocks.filter((block) => block.kind === 'fragment').map((block) => `README.md:${block.line}`)).to.deep.equal(
      [],
    );
    const quickStart = blocks.find(
      (block) => block.code.includes('new ServiceAuth(app)') && block.code.includes('app.listen('),
    );
    expect(quickStart, 'a ```ts block with new ServiceAuth(app) and app.listen(…)').to.not.equal(undefined);
  });
});
