import { expect } from 'chai';
import { hasValidChecksum, makeToken, parseToken } from '../../src/tokens/format.js';

const checked = (token: string) => {
  const parsed = parseToken(token);
  return parsed && { ...parsed, checksumValid: hasValidChecksum(token, parsed) };
};

describe('token format', () => {
  it('is <prefix>_<id>_<secret><check> with a base62 id, a 43-character secret and a 6-character check', () => {
    const { token, id } = makeToken('sat');
    const match = /^sat_([A-Za-z0-9]{16})_([A-Za-z0-9]{43})([A-Za-z0-9]{6})$/.exec(token);
    expect(match, token).not.to.equal(null);
    expect(match![1]).to.equal(id);
    expect(checked(token)).to.deep.equal({ prefix: 'sat', id, complete: true, checksumValid: true });
  });

  it('draws a fresh secret and id every time', () => {
    const tokens = new Set(Array.from({ length: 200 }, () => makeToken('sat').token));
    const ids = new Set([...tokens].map((t) => t.split('_')[1]));
    expect(tokens.size).to.equal(200);
    expect(ids.size).to.equal(200);
  });

  it('catches every single-character typo with the check', () => {
    const { token } = makeToken('acme');
    const alphabet = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
    for (let position = token.indexOf('_', 5) + 1; position < token.length; position++) {
      const replacement = alphabet[(alphabet.indexOf(token[position]!) + 1) % 62];
      const typo = token.slice(0, position) + replacement + token.slice(position + 1);
      expect(checked(typo)!.checksumValid, `typo at ${position}`).to.equal(false);
    }
  });

  it('refuses a truncated paste as our format with a bad check, not as a legacy token', () => {
    const { token } = makeToken('sat');
    for (const cut of [1, 6, 20]) expect(checked(token.slice(0, -cut))).to.include({ checksumValid: false });
  });

  it('leaves anything else to the legacy lookup', () => {
    for (const legacy of ['0123456789abcdef0123456789abcdef', 'ghp_abcdef', 'Bearer-ish token', 'SAT_x_y']) {
      expect(parseToken(legacy), legacy).to.equal(null);
    }
  });
});
