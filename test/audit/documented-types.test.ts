/**
 * docs/audit.md's table of types is the list of what the package records: every type, each said
 * when it is written, none left "reserved" (the second factor's were, after they were recorded).
 */
import { expect } from 'chai';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { AUDIT_TYPES } from '../../src/audit/records.js';
import { ROOT } from '../helpers/processes.js';

describe('audit: the documented types', () => {
  it('docs/audit.md describes each type the package records, and calls none reserved', async () => {
    const doc = await readFile(join(ROOT, 'docs/audit.md'), 'utf8');
    const table = doc.slice(doc.indexOf('## Types'), doc.indexOf('\n\n', doc.indexOf('| type |')));
    const rows = table.split('\n').filter((line) => /^\| `/.test(line));
    const described = new Map<string, string>();
    for (const row of rows) {
      const [types, when] = row.split(' | ');
      for (const [, type] of types!.matchAll(/`(\w+)`/g)) described.set(type!, when!);
    }
    expect([...described.keys()].sort()).to.deep.equal([...AUDIT_TYPES].sort());
    const reserved = [...described].filter(([, when]) => /reserved|not yet|unused/i.test(when)).map(([type]) => type);
    expect(reserved).to.deep.equal([]);
  });
});
