import { temporaryDatabase } from '../helpers/app.js';
import { upgradeContract } from './upgrade-contract.js';

describe('upgrade from the previous release [SQLite]', () => {
  upgradeContract({
    backend: 'sqlite',
    async create() {
      const database = await temporaryDatabase();
      return { url: database.url, drop: database.remove };
    },
  });
});
