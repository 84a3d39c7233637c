/**
 * The identity providers an application signs in through: from the keys (config/sso.ts) and from
 * `auth.addIdentityProvider` in code. Each is checked once, here, when it is added; nothing is
 * fetched from it until a sign-in starts (client.ts), so the application starts whether or not
 * the provider is up.
 */
import { ConfigError } from '../config/error.js';
import { DEFAULT_SSO_SCOPES, insecureUrlProblem, PROVIDER_ID, type SsoProviderSettings } from '../config/sso.js';

/** What a provider says of the person, in the package's words. */
export interface ProviderProfile {
  /** The provider's stable id for the person (`sub`; a GitHub user's numeric `id`). */
  subject: string;
  email: string | null;
  /** Whether the provider checked that the person holds the address. */
  emailVerified: boolean;
  name?: string | null;
}

/** `auth.addIdentityProvider(options)` (docs/sso.md). */
export interface IdentityProviderOptions {
  /** Lower-case letters, digits and `-`: the path `/sso/<id>` and the audit records name it. */
  id: string;
  /** The login page's button says "Sign in with <name>" (default: the id). */
  name?: string;
  /** An OpenID Connect provider: its issuer URL, from which everything else is discovered. */
  issuer?: string;
  /** A plain OAuth 2 provider (no discovery, no ID token): its three endpoints. */
  endpoints?: { authorization: string; token: string; userinfo: string };
  clientId: string;
  clientSecret: string;
  /** Default `openid email profile`. */
  scopes?: string[] | string;
  /** Let the provider's own second factor (its ID token's `amr`) stand for this application's. */
  trustProviderMfa?: boolean;
  /**
   * Maps what the provider returns (the ID token's claims and the user-info response, merged) to a
   * profile; the default reads the OpenID claims `sub`, `email`, `email_verified` and `name`.
   */
  profile?: (raw: Record<string, unknown>) => ProviderProfile | Promise<ProviderProfile>;
}

/** A provider, checked. */
export interface IdentityProvider {
  readonly id: string;
  readonly name: string;
  readonly issuer: string | undefined;
  readonly endpoints: IdentityProviderOptions['endpoints'];
  readonly clientId: string;
  readonly clientSecret: string;
  readonly scopes: readonly string[];
  readonly trustProviderMfa: boolean;
  readonly profile: (raw: Record<string, unknown>) => ProviderProfile | Promise<ProviderProfile>;
}

export class IdentityProviders {
  private readonly byId = new Map<string, IdentityProvider>();

  constructor(configured: readonly SsoProviderSettings[] = []) {
    for (const settings of configured) this.add({ ...settings, scopes: [...settings.scopes] });
  }

  /** Adds a provider; a bad option throws a ConfigError naming it. */
  add(options: IdentityProviderOptions): IdentityProvider {
    const provider = checked(options);
    if (this.byId.has(provider.id))
      throw new ConfigError(`addIdentityProvider(${provider.id}).id`, provider.id, 'an id no other provider has');
    this.byId.set(provider.id, provider);
    return provider;
  }

  get(id: string): IdentityProvider | undefined {
    return this.byId.get(id);
  }

  /** For the login and account pages' buttons. */
  list(): { id: string; name: string }[] {
    return [...this.byId.values()].map(({ id, name }) => ({ id, name }));
  }
}

function checked(options: IdentityProviderOptions): IdentityProvider {
  const id = options?.id;
  const key = (option: string) => `addIdentityProvider(${typeof id === 'string' ? id : '?'}).${option}`;
  if (typeof id !== 'string' || !PROVIDER_ID.test(id))
    throw new ConfigError(key('id'), id, 'lower-case letters, digits and - (up to 32)');
  const { issuer, endpoints } = options;
  if ((issuer === undefined) === (endpoints === undefined))
    throw new ConfigError(key('issuer'), issuer, 'either an issuer (OpenID Connect) or endpoints (OAuth 2), not both');
  const urls =
    issuer !== undefined
      ? { issuer }
      : {
          'endpoints.authorization': endpoints?.authorization,
          'endpoints.token': endpoints?.token,
          'endpoints.userinfo': endpoints?.userinfo,
        };
  for (const [option, url] of Object.entries(urls)) {
    const problem = typeof url === 'string' ? insecureUrlProblem(url) : 'a URL';
    if (problem) throw new ConfigError(key(option), url, problem);
  }
  for (const option of ['clientId', 'clientSecret'] as const) {
    if (typeof options[option] !== 'string' || options[option].length === 0) {
      throw new ConfigError(key(option), option === 'clientSecret' ? undefined : options[option], 'a non-empty string');
    }
  }
  const scopes =
    typeof options.scopes === 'string'
      ? options.scopes.trim().split(/\s+/)
      : (options.scopes ?? DEFAULT_SSO_SCOPES.split(' '));
  if (
    !Array.isArray(scopes) ||
    scopes.some((scope) => typeof scope !== 'string' || !/^[\x21\x23-\x5b\x5d-\x7e]+$/.test(scope))
  ) {
    throw new ConfigError(key('scopes'), options.scopes, 'scope names (a list, or one string separated by spaces)');
  }
  if (options.profile !== undefined && typeof options.profile !== 'function')
    throw new ConfigError(key('profile'), typeof options.profile, 'a function');
  return {
    id,
    name: typeof options.name === 'string' && options.name ? options.name : id,
    issuer,
    endpoints,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    scopes,
    trustProviderMfa: options.trustProviderMfa === true,
    profile: options.profile ?? openIdProfile,
  };
}

/** The OpenID Connect standard claims. */
export function openIdProfile(raw: Record<string, unknown>): ProviderProfile {
  const email = typeof raw['email'] === 'string' ? raw['email'] : null;
  return {
    subject: String(raw['sub'] ?? ''),
    email,
    // Some providers send the flag as a string.
    emailVerified: raw['email_verified'] === true || raw['email_verified'] === 'true',
    name: typeof raw['name'] === 'string' ? raw['name'] : null,
  };
}
