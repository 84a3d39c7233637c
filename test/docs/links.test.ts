/**
 * Every page the package ships (README.md and docs/*.md: package.json's `files`) reads on its own
 * to someone with only the tarball: its relative links lead to files the package holds, and a
 * file of the repository that the package does not hold (the demo, the sources, the tests, the
 * benchmarks) is named through a link to the repository on GitHub (package.json's `repository`),
 * whose target exists in this checkout. Commands in backticks (`npx … --app demo/app.ts`) and
 * code blocks are what a reader runs in a clone, and are left alone.
 */
import { expect } from 'chai';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, posix } from 'node:path';
import { ROOT } from '../helpers/processes.js';

const manifest = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as {
  files: string[];
  repository: { url: string };
};
const REPOSITORY = manifest.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
/**
 * The repository's folders the package does not ship. (`policies/` is also where an application
 * keeps its own, which pages name as such: `policies/tests/*.json`.)
 */
const UNSHIPPED = /^(demo|src|test|bench|scripts|\.ci)\//;

/** The Markdown pages the package ships: the README, and every page under a shipped folder. */
function shippedPages(): string[] {
  const folders = manifest.files.filter(
    (entry) => existsSync(join(ROOT, entry)) && statSync(join(ROOT, entry)).isDirectory(),
  );
  const pages = folders.flatMap((folder) =>
    readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' }).map((name) => posix.join(folder, name)),
  );
  return ['README.md', ...pages.filter((page) => page.endsWith('.md')).sort()];
}

/** Whether a path (relative to the repository) is a file or folder the package ships. */
function shipped(path: string): boolean {
  if (['README.md', 'LICENSE', 'package.json'].includes(path)) return true;
  return manifest.files.some((entry) => path === entry || path.startsWith(`${entry}/`));
}

/** The document's prose, one entry a line with its number: no fenced or indented code blocks. */
function proseLines(markdown: string): { line: number; text: string }[] {
  const prose: { line: number; text: string }[] = [];
  let fence: string | undefined;
  let previousBlank = true;
  let inIndented = false;
  markdown.split('\n').forEach((text, index) => {
    const opening = /^ {0,3}(`{3,}|~{3,})/.exec(text);
    if (fence !== undefined) {
      if (opening && opening[1]!.startsWith(fence)) fence = undefined;
    } else if (opening) {
      fence = opening[1]!;
    } else {
      inIndented = /^ {4,}\S/.test(text) && (previousBlank || inIndented);
      if (!inIndented) prose.push({ line: index + 1, text });
    }
    previousBlank = text.trim() === '';
  });
  return prose;
}

describe('docs: every shipped page reads on its own with only the package', () => {
  const pages = shippedPages();

  it('ships the README and every page of docs/', () => {
    const docs = readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md'));
    expect(pages).to.include.members(['README.md', ...docs.map((name) => `docs/${name}`)]);
  });

  it('links relatively only to what the package holds, and to the repository only to what exists in it', () => {
    const problems: string[] = [];
    for (const page of pages) {
      for (const { line, text } of proseLines(readFileSync(join(ROOT, page), 'utf8'))) {
        for (const [, target] of text.matchAll(/\]\(([^)\s#]*)[^)]*\)|<img src="([^"#]+)"/g)) {
          if (!target || /^[a-z]+:/.test(target)) continue;
          const path = posix.normalize(posix.join(posix.dirname(page), decodeURIComponent(target)));
          if (!shipped(path) || !existsSync(join(ROOT, path)))
            problems.push(`${page}:${line}: ${target} (not in the package: link to ${REPOSITORY})`);
        }
        for (const [, path] of text.matchAll(new RegExp(`${REPOSITORY}/(?:blob|tree)/main/([^)#\\s]+)`, 'g'))) {
          if (!existsSync(join(ROOT, path!))) problems.push(`${page}:${line}: ${path} is not in the repository`);
        }
      }
    }
    expect(problems).to.deep.equal([]);
  });

  it("names a file of the repository that the package does not hold (the demo's, a source, a test) through a link to the repository", () => {
    const problems: string[] = [];
    for (const page of pages) {
      for (const { line, text } of proseLines(readFileSync(join(ROOT, page), 'utf8'))) {
        // What a link already names is named well; a command in backticks is run in a clone.
        const rest = text
          .replace(/\[[^\]]*\]\([^)]*\)/g, '')
          .replace(/`[^`]*`/g, (code) => (/\s/.test(code) ? '' : code));
        for (const [, path] of rest.matchAll(
          /(?<![\w/.-])`?((?:demo|src|test|bench|scripts|\.ci)\/[\w./-]*[\w/])`?/g,
        )) {
          if (UNSHIPPED.test(path!) && existsSync(join(ROOT, path!))) problems.push(`${page}:${line}: ${path}`);
        }
      }
    }
    expect(problems, `link them to ${REPOSITORY}/blob/main/<path> (a folder: /tree/main/)`).to.deep.equal([]);
  });
});
