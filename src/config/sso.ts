/**
 * The keys of sign-in through identity providers (docs/sso.md): `SERVICE_AUTH_SSO_PROVIDERS` lists
 * the providers' ids, and each has its own keys, `SERVICE_AUTH_SSO_<ID>_ISSUER` and so on, whose
 * names depend on that list (unknown-keys.ts asks `ssoKeysFor` which they are).
 */
import { ConfigError } from './error.js';
import { boolean, integerBetween, nonEmptyString, urlWithScheme } from './parsers.js';

/** One provider as configured, by keys or by `auth.addIdentityProvider` (src/sso/ checks the rest). */
export interface SsoProviderSettings {
  readonly id: string;
  /** The button's label. */
  readonly name: string;
  readonly issuer: string;
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scopes: readonly string[];
  /** Whether the provider's own second factor (the ID token's `amr`) stands for ours. */
  readonly trustProviderMfa: boolean;
}

export interface SsoConfig {
  /** SERVICE_AUTH_SSO_REGISTRATION: an identity no account knows creates one (if the provider verified the address). */
  readonly registration: boolean;
  /** SERVICE_AUTH_SSO_TIMEOUT: seconds a request to a provider may take before the sign-in fails (provider_error). */
  readonly timeoutSeconds: number;
  readonly providers: readonly SsoProviderSettings[];
}

export const DEFAULT_SSO_SCOPES = 'openid email profile';

/** A provider that does not answer holds the person's browser (and a request of ours) this long at most. */
export const DEFAULT_SSO_TIMEOUT_SECONDS = 10;

/** A provider's id: lower-case letters, digits and `-`, as in `/sso/<id>/callback`. */
export const PROVIDER_ID = /^[a-z0-9](?:[a-z0-9-]{0,30}[a-z0-9])?$/;

const PER_PROVIDER = ['ISSUER', 'CLIENT_ID', 'CLIENT_SECRET', 'SCOPES', 'NAME', 'TRUST_PROVIDER_MFA'] as const;

/** The key of one of a provider's settings: `acme-corp`, `CLIENT_ID` → SERVICE_AUTH_SSO_ACME_CORP_CLIENT_ID. */
export function ssoKey(id: string, setting: (typeof PER_PROVIDER)[number]): string {
  return `SERVICE_AUTH_SSO_${id.toUpperCase().replace(/-/g, '_')}_${setting}`;
}

/** Every key the providers listed in `SERVICE_AUTH_SSO_PROVIDERS` may have (none if the list does not parse). */
export function ssoKeysFor(list: unknown): string[] {
  let ids: string[];
  try {
    ids = providerIds(list, 'SERVICE_AUTH_SSO_PROVIDERS');
  } catch {
    return [];
  }
  return ids.flatMap((id) => PER_PROVIDER.map((setting) => ssoKey(id, setting)));
}

function providerIds(value: unknown, key: string): string[] {
  if (value === undefined) return [];
  const expected = 'a comma-separated list of provider ids (lower-case letters, digits and -)';
  if (typeof value !== 'string') throw new ConfigError(key, value, expected);
  const ids = value
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  if (ids.some((id) => !PROVIDER_ID.test(id)) || new Set(ids).size !== ids.length)
    throw new ConfigError(key, value, expected);
  return ids;
}

/**
 * Why an issuer (or endpoint) URL may not be used, or undefined: it must be https, or plain http
 * on a loopback address only (tests, local development): a code and a client secret would
 * otherwise cross the network in clear.
 */
export function insecureUrlProblem(value: string): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'an https:// URL';
  }
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:' && isLoopback(url.hostname)) return undefined;
  return 'an https:// URL (plain http:// only on a loopback address: 127.0.0.1, [::1] or localhost)';
}

export function isLoopback(hostname: string): boolean {
  return hostname === 'localhost' || hostname === '[::1]' || /^127(?:\.\d{1,3}){3}$/.test(hostname);
}

/** Reads the keys; `get` is the configuration's source (settings, then environment). */
export function readSsoConfig(get: (key: string) => unknown): SsoConfig {
  const ids = providerIds(get('SERVICE_AUTH_SSO_PROVIDERS'), 'SERVICE_AUTH_SSO_PROVIDERS');
  const registration = get('SERVICE_AUTH_SSO_REGISTRATION');
  const timeout = get('SERVICE_AUTH_SSO_TIMEOUT');
  return {
    registration: registration === undefined ? false : boolean(registration, 'SERVICE_AUTH_SSO_REGISTRATION'),
    timeoutSeconds:
      timeout === undefined ? DEFAULT_SSO_TIMEOUT_SECONDS : integerBetween(1, 120)(timeout, 'SERVICE_AUTH_SSO_TIMEOUT'),
    providers: ids.map((id) => readProvider(id, get)),
  };
}

function readProvider(id: string, get: (key: string) => unknown): SsoProviderSettings {
  const required = (setting: 'ISSUER' | 'CLIENT_ID' | 'CLIENT_SECRET', expected: string): string => {
    const key = ssoKey(id, setting);
    const value = get(key);
    if (value === undefined)
      throw new ConfigError(
        key,
        undefined,
        `${expected}: it is required for the provider ${id} of SERVICE_AUTH_SSO_PROVIDERS`,
      );
    return value as string;
  };
  const issuerKey = ssoKey(id, 'ISSUER');
  const issuer = urlWithScheme(['http:', 'https:'])(required('ISSUER', "the provider's issuer URL"), issuerKey);
  const problem = insecureUrlProblem(issuer);
  if (problem) throw new ConfigError(issuerKey, issuer, problem);
  const clientId = nonEmptyString('the client id registered with the provider')(
    required('CLIENT_ID', 'the client id'),
    ssoKey(id, 'CLIENT_ID'),
  );
  const secretKey = ssoKey(id, 'CLIENT_SECRET');
  const secret = get(secretKey);
  // Never the value in the message: it is a secret.
  if (typeof secret !== 'string' || secret.length === 0)
    throw new ConfigError(
      secretKey,
      secret === undefined ? undefined : '(hidden)',
      `the client secret: it is required for the provider ${id}`,
    );
  const scopes = get(ssoKey(id, 'SCOPES'));
  if (
    scopes !== undefined &&
    (typeof scopes !== 'string' || !/^[\x21\x23-\x5b\x5d-\x7e]+(?: [\x21\x23-\x5b\x5d-\x7e]+)*$/.test(scopes.trim()))
  ) {
    throw new ConfigError(ssoKey(id, 'SCOPES'), scopes, 'scopes separated by spaces, such as "openid email profile"');
  }
  const name = get(ssoKey(id, 'NAME'));
  const trust = get(ssoKey(id, 'TRUST_PROVIDER_MFA'));
  return {
    id,
    name: name === undefined ? id : nonEmptyString("the button's label")(name, ssoKey(id, 'NAME')),
    issuer,
    clientId,
    clientSecret: secret,
    scopes: ((scopes as string | undefined) ?? DEFAULT_SSO_SCOPES).trim().split(' '),
    trustProviderMfa: trust === undefined ? false : boolean(trust, ssoKey(id, 'TRUST_PROVIDER_MFA')),
  };
}
