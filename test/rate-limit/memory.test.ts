import { createLimiter } from '../../src/rate-limit/limiter.js';
import { parseRate } from '../../src/config/rates.js';
import { limiterContract } from './limiter-contract.js';

describe('limiter [memory]', () => {
  limiterContract((name, rate) => createLimiter({ name, rate: parseRate(rate) }));
});
