/**
 * The layout's rules, checked on the sources as they are: a folder is a room with one job, rooms
 * depend on each other in one direction only, guards know nothing of HTTP answers, files stay
 * small, and what a user reads (the README, the shipped type declarations) names no document
 * that is not there.
 */
import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { ROOT } from './helpers/processes.js';

const SOURCE_FOLDERS = ['src', 'cli', 'demo', 'bench', 'scripts', 'policies'];
const MAX_LINES = 250;
const MAX_LINE_LENGTH = 140;

function filesUnder(folder: string, extension: string): string[] {
  const path = join(ROOT, folder);
  if (!existsSync(path)) return [];
  return readdirSync(path, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith(extension))
    .map((file) => join(path, file));
}

/** The files a source file imports or re-exports by a relative path (types included). */
function relativeImports(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  const specifiers = [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((match) => match[1]!);
  return specifiers.map((specifier) => resolve(dirname(file), specifier.replace(/\.js$/, '.ts')));
}

const sources = SOURCE_FOLDERS.flatMap((folder) => filesUnder(folder, '.ts'));
const folderOf = (file: string) => relative(ROOT, dirname(file));

describe('the layout', () => {
  it('has no two folders that import each other (files directly in src/ are the facade and the basics, not a room)', () => {
    const edges = new Set<string>();
    for (const file of sources) {
      for (const target of relativeImports(file)) {
        const [from, to] = [folderOf(file), folderOf(target)];
        if (from !== to && from !== 'src' && to !== 'src') edges.add(`${from} -> ${to}`);
      }
    }
    const both = [...edges].filter((edge) => {
      const [from, to] = edge.split(' -> ');
      return from! < to! && edges.has(`${to} -> ${from}`);
    });
    expect(both, 'folders importing each other').to.deep.equal([]);
  });

  /** Each import of a file under `from` of a file under `to`, as `file imports target`. */
  function importsBetween(from: string, to: string): string[] {
    const under = (file: string, folder: string) =>
      folderOf(file) === folder || folderOf(file).startsWith(`${folder}/`);
    return sources
      .filter((file) => under(file, from))
      .flatMap((file) =>
        relativeImports(file)
          .filter((target) => under(target, to))
          .map((target) => `${relative(ROOT, file)} imports ${relative(ROOT, target)}`),
      );
  }

  for (const room of ['src/authorization', 'src/orgs', 'src/users']) {
    it(`keeps ${room}/ free of src/http/: it decides and keeps, the HTTP layer asks and answers`, () => {
      expect(importsBetween(room, 'src/http')).to.deep.equal([]);
    });
  }

  it('keeps src/authorization/ free of src/storage/: deciding is pure, what is stored reaches it through interfaces', () => {
    expect(importsBetween('src/authorization', 'src/storage')).to.deep.equal([]);
  });

  it(`has no line over ${MAX_LINE_LENGTH} characters in src or cli (Prettier's print width is 120; a longer line is a string it cannot break)`, () => {
    const long = sources
      .filter((file) => /^(src|cli)\//.test(relative(ROOT, file)))
      .flatMap((file) =>
        readFileSync(file, 'utf8')
          .split('\n')
          .flatMap((line, i) => (line.length > MAX_LINE_LENGTH ? [`${relative(ROOT, file)}:${i + 1}`] : [])),
      );
    expect(long).to.deep.equal([]);
  });

  it(`has no source file over ${MAX_LINES} lines`, () => {
    const long = sources
      .map((file) => ({ file: relative(ROOT, file), lines: readFileSync(file, 'utf8').split('\n').length - 1 }))
      .filter(({ lines }) => lines > MAX_LINES);
    expect(long).to.deep.equal([]);
  });
});

describe('what a user reads', () => {
  /** Document names a text refers to: Markdown links to local files, `*.md` names, the contract. */
  function missingDocuments(text: string, base: string): string[] {
    const missing: string[] = [];
    for (const [, target] of text.matchAll(/\]\(([^)#\s]+)[^)]*\)/g)) {
      if (/^[a-z]+:/.test(target!)) continue; // a URL
      if (!existsSync(join(base, decodeURIComponent(target!)))) missing.push(target!);
    }
    for (const [name] of text.matchAll(/\b[\w./-]+\.md\b/g)) {
      if (!existsSync(join(base, name)) && !existsSync(join(ROOT, name))) missing.push(name);
    }
    for (const [name] of text.matchAll(/\b(?:CONTRACT(?:-2)?|ARCHITECTURE)\b/g)) missing.push(name);
    return missing;
  }

  it('the README links to nothing that is not in the repository', () => {
    expect(missingDocuments(readFileSync(join(ROOT, 'README.md'), 'utf8'), ROOT)).to.deep.equal([]);
  });

  it('the documents under docs/ link to nothing that is not in the repository', () => {
    for (const file of filesUnder('docs', '.md')) {
      expect(missingDocuments(readFileSync(file, 'utf8'), dirname(file)), relative(ROOT, file)).to.deep.equal([]);
    }
  });

  it('the shipped type declarations name no document that is not in the package', () => {
    const declarations = filesUnder('dist', '.d.ts');
    expect(declarations.length, 'built declarations (npm test builds first)').to.be.above(20);
    const named = declarations.flatMap((file) =>
      missingDocuments(readFileSync(file, 'utf8'), dirname(file)).map((name) => `${relative(ROOT, file)}: ${name}`),
    );
    expect(named).to.deep.equal([]);
  });

  it('builds from a clean dist/: no declaration of a source that is gone', () => {
    const stale = filesUnder('dist', '.d.ts').filter((file) => {
      const source = relative(join(ROOT, 'dist'), file).replace(/\.d\.ts$/, '.ts');
      return statSync(file).isFile() && !existsSync(join(ROOT, source));
    });
    expect(stale.map((file) => relative(ROOT, file))).to.deep.equal([]);
  });
});
