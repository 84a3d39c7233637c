import { expect } from 'chai';
import { passwordFailures } from '../../src/passwords/rules.js';
import type { PasswordPolicy } from '../../src/config/config.js';

const defaults: PasswordPolicy = { minLength: 12, maxLength: 256, complexity: true, blocklist: false };
const rules = (password: string, policy: Partial<PasswordPolicy> = {}) =>
  passwordFailures(password, { ...defaults, ...policy }).map((f) => f.rule);

describe('password rules', () => {
  it('accepts a password that meets every rule', () => {
    expect(rules('Correct-Horse-9')).to.deep.equal([]);
  });

  it('reports every failed rule at once', () => {
    expect(rules('abc')).to.deep.equal(['min_length', 'uppercase', 'digit', 'special']);
    expect(rules('')).to.deep.equal(['min_length', 'uppercase', 'lowercase', 'digit', 'special']);
  });

  it('enforces the minimum length even with complexity off', () => {
    expect(rules('alllowercase', { complexity: false })).to.deep.equal([]);
    expect(rules('short', { complexity: false })).to.deep.equal(['min_length']);
  });

  it('enforces the maximum length', () => {
    expect(rules(`Aa1!${'x'.repeat(20)}`, { maxLength: 20 })).to.deep.equal(['max_length']);
  });

  it('counts Unicode code points after NFC normalisation', () => {
    // "é" as e + combining acute is two code units and two code points, one after NFC.
    const decomposed = 'Cafe\u0301-Cafe\u0301-12'; // 14 code points as typed, 12 after NFC
    expect([...decomposed].length).to.equal(14);
    expect(rules(decomposed, { minLength: 13 })).to.deep.equal(['min_length']);
    expect(rules(decomposed, { minLength: 12 })).to.deep.equal([]);
    // An emoji outside the BMP is one code point (two UTF-16 units).
    expect(rules('Aa1!😀😀😀😀😀😀😀😀', { minLength: 12 })).to.deep.equal([]);
    expect(rules('Aa1!😀😀😀😀😀😀😀', { minLength: 12 })).to.deep.equal(['min_length']);
  });

  it('counts any character that is not an ASCII letter or digit as special', () => {
    expect(rules('Passwordpass1 ')).to.deep.equal([]);
    expect(rules('Passwordpass1é')).to.deep.equal([]);
    expect(rules('Passwordpass12')).to.deep.equal(['special']);
    // Non-ASCII letters do not count as the ASCII classes the rules name.
    expect(rules('ÉÉÉÉÉÉÉÉÉÉé1!')).to.deep.equal(['uppercase', 'lowercase']);
  });

  it('rejects common passwords only when the blocklist is enabled, whatever their case', () => {
    const common = 'passwordpassword';
    expect(rules(common, { complexity: false, minLength: 15 })).to.deep.equal([]);
    expect(rules(common, { complexity: false, minLength: 15, blocklist: true })).to.deep.equal(['blocklisted']);
    expect(rules('PasswordPassword', { complexity: false, minLength: 15, blocklist: true })).to.deep.equal([
      'blocklisted',
    ]);
    expect(rules('Correct-Horse-Battery-9', { blocklist: true })).to.deep.equal([]);
  });

  it('explains each failure in words', () => {
    const failures = passwordFailures('abc', defaults);
    expect(failures[0]).to.deep.equal({ rule: 'min_length', message: 'must be at least 12 characters long' });
    for (const failure of failures) expect(failure.message).to.be.a('string').and.not.be.empty;
  });
});
