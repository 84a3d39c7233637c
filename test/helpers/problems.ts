/** What every problem+json answer must be, wherever a suite meets one. */
import { expect } from 'chai';
import { ROOT } from './processes.js';

export const PROBLEM = /^application\/problem\+json/;

/** A problem body says what went wrong, never where in our code or on our disk. */
export function expectNoInternals(text: string): void {
  expect(text).not.to.match(/\n\s+at /);
  expect(text).not.to.contain(ROOT.replace(/\/$/, ''));
  expect(text).not.to.contain(process.cwd());
  expect(text).not.to.contain('node_modules');
}
