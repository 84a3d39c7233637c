/**
 * The keys of sign-in through identity providers (config/sso.ts, docs/sso.md): a provider listed in
 * SERVICE_AUTH_SSO_PROVIDERS brings its own keys, each refused by name when wrong; the unknown-key
 * warnings know those names; an issuer in plain http is accepted on a loopback address only, from
 * the keys and from `auth.addIdentityProvider` alike. Nothing is fetched from a provider at start.
 */
import { expect } from 'chai';
import express from 'express';
import { readConfig } from '../../src/config/read-config.js';
import { unknownKeys } from '../../src/config/unknown-keys.js';
import { ConfigError, ServiceAuth } from '../../src/index.js';

const source = (keys: Record<string, string>) => ({
  get: (key: string) => (key === 'SERVICE_AUTH_PUBLIC_URL' ? 'https://app.example.com' : keys[key]),
});
const acme = {
  SERVICE_AUTH_SSO_PROVIDERS: 'acme,big-corp',
  SERVICE_AUTH_SSO_ACME_ISSUER: 'https://id.acme.test',
  SERVICE_AUTH_SSO_ACME_CLIENT_ID: 'app',
  SERVICE_AUTH_SSO_ACME_CLIENT_SECRET: 'shh-secret',
};
const bigCorp = {
  SERVICE_AUTH_SSO_BIG_CORP_ISSUER: 'http://127.0.0.1:9/',
  SERVICE_AUTH_SSO_BIG_CORP_CLIENT_ID: 'app',
  SERVICE_AUTH_SSO_BIG_CORP_CLIENT_SECRET: 'x',
  SERVICE_AUTH_SSO_BIG_CORP_SCOPES: 'openid email',
  SERVICE_AUTH_SSO_BIG_CORP_TRUST_PROVIDER_MFA: 'yes',
  SERVICE_AUTH_SSO_BIG_CORP_NAME: 'Big Corp',
};

function refusal(keys: Record<string, string>): ConfigError {
  try {
    readConfig(source(keys));
  } catch (error) {
    expect(error).to.be.instanceOf(ConfigError);
    return error as ConfigError;
  }
  throw new Error('no ConfigError');
}

describe('configuration: identity providers', () => {
  it('reads each listed provider with its defaults (scopes, name, MFA not trusted, registration off)', () => {
    const { sso } = readConfig(source({ ...acme, ...bigCorp }));
    expect(sso.registration).to.equal(false);
    expect(sso.providers).to.deep.equal([
      {
        id: 'acme',
        name: 'acme',
        issuer: 'https://id.acme.test',
        clientId: 'app',
        clientSecret: 'shh-secret',
        scopes: ['openid', 'email', 'profile'],
        trustProviderMfa: false,
      },
      {
        id: 'big-corp',
        name: 'Big Corp',
        issuer: 'http://127.0.0.1:9/',
        clientId: 'app',
        clientSecret: 'x',
        scopes: ['openid', 'email'],
        trustProviderMfa: true,
      },
    ]);
  });

  it('names the key of a missing or bad value, never showing a client secret', () => {
    expect(refusal({ SERVICE_AUTH_SSO_PROVIDERS: 'Acme!' }).key).to.equal('SERVICE_AUTH_SSO_PROVIDERS');
    expect(
      refusal({ ...acme, SERVICE_AUTH_SSO_PROVIDERS: 'acme', SERVICE_AUTH_SSO_ACME_ISSUER: 'http://id.acme.test' }).key,
    ).to.equal('SERVICE_AUTH_SSO_ACME_ISSUER');
    expect(
      refusal({ ...acme, SERVICE_AUTH_SSO_PROVIDERS: 'acme', SERVICE_AUTH_SSO_ACME_TRUST_PROVIDER_MFA: 'sometimes' })
        .key,
    ).to.equal('SERVICE_AUTH_SSO_ACME_TRUST_PROVIDER_MFA');
    expect(
      refusal({ ...acme, SERVICE_AUTH_SSO_PROVIDERS: 'acme', SERVICE_AUTH_SSO_REGISTRATION: 'maybe' }).key,
    ).to.equal('SERVICE_AUTH_SSO_REGISTRATION');
    const missing = refusal({
      SERVICE_AUTH_SSO_PROVIDERS: 'acme',
      SERVICE_AUTH_SSO_ACME_ISSUER: 'https://id.acme.test',
      SERVICE_AUTH_SSO_ACME_CLIENT_ID: 'app',
    });
    expect(missing.key).to.equal('SERVICE_AUTH_SSO_ACME_CLIENT_SECRET');
  });

  it("knows a listed provider's keys, and reports another provider's as unknown, with the nearest key", () => {
    const env = { ...acme, SERVICE_AUTH_SSO_ACME_CLIENTID: 'typo', SERVICE_AUTH_SSO_OTHER_ISSUER: 'https://x.test' };
    const found = unknownKeys(undefined, env);
    expect(found.map((k) => [k.key, k.nearest])).to.deep.equal([
      ['SERVICE_AUTH_SSO_ACME_CLIENTID', 'SERVICE_AUTH_SSO_ACME_CLIENT_ID'],
      ['SERVICE_AUTH_SSO_OTHER_ISSUER', 'SERVICE_AUTH_SSO_ACME_ISSUER'],
    ]);
  });

  it('starts without reaching the provider, and refuses a plain-http issuer off loopback from code too', async () => {
    const app = express();
    for (const [key, value] of Object.entries({
      SERVICE_AUTH_DATABASE_URL: 'sqlite::memory:',
      SERVICE_AUTH_PUBLIC_URL: 'http://localhost:3000',
      ...acme,
      SERVICE_AUTH_SSO_PROVIDERS: 'acme',
    }))
      app.set(key, value);
    const auth = new ServiceAuth(app);
    try {
      await auth.ready; // id.acme.test does not exist: nothing asked it anything
      const add = (issuer: string) => () =>
        auth.addIdentityProvider({ id: 'corp', issuer, clientId: 'a', clientSecret: 'b' });
      expect(add('http://id.corp.test')).to.throw(ConfigError, /addIdentityProvider\(corp\)\.issuer/);
      expect(add('http://[::1]:8080')).to.not.throw();
      expect(() =>
        auth.addIdentityProvider({ id: 'corp', issuer: 'https://x.test', clientId: 'a', clientSecret: 'b' }),
      ).to.throw(ConfigError, /\.id/);
      expect(() =>
        auth.addIdentityProvider({
          id: 'gh',
          endpoints: { authorization: 'https://gh.test/a', token: 'http://gh.test/t', userinfo: 'https://gh.test/u' },
          clientId: 'a',
          clientSecret: 'b',
        }),
      ).to.throw(ConfigError, /endpoints\.token/);
    } finally {
      await auth.close();
    }
  });
});
