import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { storageContract } from './storage-contract.js';

describe('storage [SQLite]', () => {
  storageContract({
    async create() {
      const dir = await mkdtemp(join(tmpdir(), 'service-auth-'));
      return { url: `sqlite:${join(dir, 'auth.sqlite')}`, drop: () => rm(dir, { recursive: true, force: true }) };
    },
  });
});
