/**
 * The sides of `auth policy diff`: a policy file or directory, or `git:REF:PATH`, read with
 * `git show` from the repository of the current directory (PATH as git reads it: from the
 * repository's root, or from the current directory when it begins with `./`). A directory in git
 * is its `.json` files, in name order, as on disk.
 */
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { promisify } from 'node:util';
import type { PolicyDocument } from '../../src/index.js';
import { CliFailure, EXIT_USAGE } from './failures.js';

const run = promisify(execFile);
const GIT_PREFIX = 'git:';

/** A path, or the files read from git; a usage failure for one that cannot be read. */
export async function readPolicySource(spec: string): Promise<string | PolicyDocument[]> {
  if (!spec.startsWith(GIT_PREFIX)) {
    const path = resolve(spec);
    if (!existsSync(path)) throw new CliFailure(`No policy file or directory ${spec}`, EXIT_USAGE);
    return path;
  }
  const rest = spec.slice(GIT_PREFIX.length);
  const colon = rest.indexOf(':');
  if (colon <= 0) throw new CliFailure(`${spec}: expected git:REF:PATH, such as git:HEAD:policies`, EXIT_USAGE);
  const object = `${rest.slice(0, colon)}:${rest.slice(colon + 1)}`;
  const type = await git(spec, ['cat-file', '-t', object]);
  if (type === 'blob') return [await gitDocument(spec, object)];
  if (type !== 'tree') throw new CliFailure(`${spec} is neither a file nor a directory`, EXIT_USAGE);
  const entries = (await git(spec, ['ls-tree', object])).split('\n').filter(Boolean);
  const files = entries
    .map((entry) => entry.split('\t'))
    .filter(([meta, name]) => meta!.split(' ')[1] === 'blob' && name!.endsWith('.json'))
    .map(([, name]) => name!)
    .sort();
  const folder = object.endsWith(':') || object.endsWith('/') ? object : `${object}/`;
  return Promise.all(files.map((name) => gitDocument(`${spec.replace(/\/$/, '')}/${name}`, `${folder}${name}`)));
}

async function gitDocument(file: string, object: string): Promise<PolicyDocument> {
  const text = await git(file, ['show', object]);
  try {
    return { file, document: JSON.parse(text) };
  } catch (error) {
    throw new CliFailure(
      `${file}: not valid JSON (${error instanceof Error ? error.message : String(error)})`,
      EXIT_USAGE,
    );
  }
}

async function git(spec: string, args: string[]): Promise<string> {
  try {
    const { stdout } = await run('git', args, { maxBuffer: 64 * 1024 * 1024 });
    return stdout.trim();
  } catch (error) {
    const stderr = (error as { stderr?: string }).stderr?.trim().split('\n')[0];
    throw new CliFailure(
      `Cannot read ${spec} from git: ${stderr || (error instanceof Error ? error.message : String(error))}`,
      EXIT_USAGE,
    );
  }
}
