/**
 * The OAuth 2 and OpenID Connect protocol, by `openid-client` (loaded with the first sign-in, not
 * with the package): the authorization URL with PKCE (S256), `state` and, for OpenID Connect,
 * `nonce`; the code exchanged with `client_secret_basic`; the ID token's issuer, audience, nonce
 * and signature checked by the library (the signature even when the token came straight from the
 * token endpoint, which OpenID Connect would allow to go unchecked: `enableNonRepudiationChecks`).
 * Nothing here parses or verifies a token by hand.
 */
import type { Configuration } from 'openid-client';
import { DEFAULT_SSO_TIMEOUT_SECONDS, isLoopback } from '../config/sso.js';
import { SsoFailed, type SsoFailureReason } from '../errors.js';
import { once } from '../once.js';
import type { IdentityProvider, ProviderProfile } from './providers.js';

type OpenIdClient = typeof import('openid-client');

/** What a sign-in keeps between its start and the provider's answer. */
export interface AuthorizationChecks {
  state: string;
  /** Null for a plain OAuth 2 provider, which issues no ID token. */
  nonce: string | null;
  codeVerifier: string;
}

/** What the provider said of the person, and how it authenticated them (`amr`, RFC 8176). */
export interface ProviderAnswer {
  profile: ProviderProfile;
  amr: string[];
}

/** Told of each failure on the provider's side: the provider's id, and what failed as the library and Node name it. */
export type ProviderFailures = (providerId: string, kind: string) => void;

export class ProviderClients {
  /** The library, loaded with the first sign-in (again after a failed load). */
  private readonly load: () => Promise<OpenIdClient> = once(() => import('openid-client'));

  /**
   * `timeoutSeconds` (SERVICE_AUTH_SSO_TIMEOUT): every request to the provider (discovery, keys, the
   * code's exchange, user info) is given up after it, as a provider_error, so that a provider that
   * never answers does not hold the person, nor a request of ours, for the library's 30 seconds.
   */
  constructor(
    private readonly onProviderFailure: ProviderFailures = () => undefined,
    private readonly timeoutSeconds = DEFAULT_SSO_TIMEOUT_SECONDS,
  ) {}
  /** Each provider's configuration, discovered once (again after a failure: the provider may be back). */
  private readonly configurations = new Map<string, Promise<Configuration>>();

  /** The URL to send the browser to, and the checks its answer must pass. */
  async begin(provider: IdentityProvider, redirectUri: string): Promise<{ url: URL; checks: AuthorizationChecks }> {
    const client = await this.load();
    const config = await this.configuration(provider);
    const codeVerifier = client.randomPKCECodeVerifier();
    const checks = { state: client.randomState(), nonce: provider.issuer ? client.randomNonce() : null, codeVerifier };
    const parameters: Record<string, string> = {
      redirect_uri: redirectUri,
      scope: provider.scopes.join(' '),
      code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
      code_challenge_method: 'S256',
      state: checks.state,
    };
    if (checks.nonce) parameters['nonce'] = checks.nonce;
    return { url: client.buildAuthorizationUrl(config, parameters), checks };
  }

  /** The provider's answer at `callbackUrl`, checked; a refusal is an SsoFailed with its reason. */
  async finish(provider: IdentityProvider, callbackUrl: URL, checks: AuthorizationChecks): Promise<ProviderAnswer> {
    const client = await this.load();
    const config = await this.configuration(provider);
    try {
      const tokens = await client.authorizationCodeGrant(config, callbackUrl, {
        pkceCodeVerifier: checks.codeVerifier,
        expectedState: checks.state,
        ...(checks.nonce ? { expectedNonce: checks.nonce } : {}),
      });
      const claims = (tokens.claims() ?? {}) as Record<string, unknown>;
      let raw: Record<string, unknown> = { ...claims };
      if (provider.endpoints) {
        const response = await client.fetchProtectedResource(
          config,
          tokens.access_token,
          new URL(provider.endpoints.userinfo),
          'GET',
        );
        if (!response.ok)
          throw new SsoFailed('provider_error', `The provider's user-info endpoint answered ${response.status}`);
        raw = { ...((await response.json()) as Record<string, unknown>) };
      } else if (typeof claims['email'] !== 'string' && config.serverMetadata().userinfo_endpoint) {
        // Many providers put the address in the user-info response only; its `sub` must be the ID token's.
        raw = { ...(await client.fetchUserInfo(config, tokens.access_token, String(claims['sub']))), ...claims };
      }
      const profile = await provider.profile(raw);
      if (typeof profile?.subject !== 'string' || profile.subject === '')
        throw new SsoFailed('provider_error', 'The provider named no subject for the person');
      const amr = Array.isArray(claims['amr']) ? claims['amr'].filter((v): v is string => typeof v === 'string') : [];
      return { profile, amr };
    } catch (error) {
      throw this.refusal(provider, error);
    }
  }

  /** The refusal; one on the provider's side (unreachable, or an error answer) is told, by kind. */
  private refusal(provider: IdentityProvider, error: unknown): SsoFailed {
    const failed = refusal(error);
    if (failed.reason === 'provider_error') this.onProviderFailure(provider.id, kindOf(error));
    return failed;
  }

  private configuration(provider: IdentityProvider): Promise<Configuration> {
    let config = this.configurations.get(provider.id);
    if (!config) {
      config = this.configure(provider).catch((error: unknown) => {
        this.configurations.delete(provider.id);
        throw this.refusal(provider, error);
      });
      this.configurations.set(provider.id, config);
    }
    return config;
  }

  private async configure(provider: IdentityProvider): Promise<Configuration> {
    const client = await this.load();
    const authentication = client.ClientSecretBasic(provider.clientSecret);
    // Plain http only where providers.ts allowed it: a loopback address.
    const loopback = (url: string) => new URL(url).protocol === 'http:' && isLoopback(new URL(url).hostname);
    if (provider.issuer) {
      const options = {
        timeout: this.timeoutSeconds,
        ...(loopback(provider.issuer) && { execute: [client.allowInsecureRequests] }),
      };
      const config = await client.discovery(
        new URL(provider.issuer),
        provider.clientId,
        undefined,
        authentication,
        options,
      );
      client.enableNonRepudiationChecks(config);
      return config;
    }
    const endpoints = provider.endpoints!;
    const metadata = {
      issuer: new URL(endpoints.authorization).origin,
      authorization_endpoint: endpoints.authorization,
      token_endpoint: endpoints.token,
    };
    const config = new client.Configuration(metadata, provider.clientId, undefined, authentication);
    config.timeout = this.timeoutSeconds;
    if (Object.values(endpoints).some(loopback)) client.allowInsecureRequests(config);
    return config;
  }
}

/** What failed, from the library's error (its own, or one its cause chain carries). */
function refusal(error: unknown): SsoFailed {
  if (error instanceof SsoFailed) return error;
  const reason = reasonOf(error);
  return new SsoFailed(reason, DETAILS[reason]);
}

const DETAILS: Record<SsoFailureReason, string> = {
  state: 'The sign-in could not be matched to one this browser started, or it was used already or expired',
  nonce: "The provider's ID token was not issued for this sign-in (nonce mismatch)",
  issuer: 'The answer did not come from the configured provider (issuer mismatch)',
  signature: "The provider's ID token signature did not verify",
  audience: "The provider's ID token was issued to another application (audience mismatch)",
  provider_error: 'The provider refused or failed the sign-in',
  email_unverified: 'The provider has not verified the email address',
  not_linked: 'No account is linked to this identity',
};

function reasonOf(error: unknown): SsoFailureReason {
  for (const e of chainOf(error)) {
    const name = String(e.name ?? '');
    const message = String(e.message ?? '');
    const claim = (e.cause as { claim?: unknown } | undefined)?.claim;
    if (
      name === 'AuthorizationResponseError' ||
      name === 'ResponseBodyError' ||
      name === 'WWWAuthenticateChallengeError'
    )
      return 'provider_error';
    if (claim === 'nonce') return 'nonce';
    if (claim === 'iss') return 'issuer';
    if (claim === 'aud' || claim === 'azp') return 'audience';
    if (/"iss" \(issuer\)|issuer does not match/.test(message)) return 'issuer';
    if (/"aud" \(audience\)/.test(message)) return 'audience';
    if (/"nonce"/.test(message)) return 'nonce';
    if (/signature verification failed|JWS "alg"/.test(message) || e.code === 'OAUTH_KEY_SELECTION_FAILED')
      return 'signature';
    if (/"state"/.test(message)) return 'state';
  }
  return 'provider_error';
}

/**
 * What failed, by the names and codes of the error and its causes (`TypeError, ECONNREFUSED`):
 * only names and constant-like codes, never a message, which may carry what the browser brought
 * back from the provider (its `error_description`).
 */
function kindOf(error: unknown): string {
  const kinds: string[] = [];
  for (const { name, code } of chainOf(error)) {
    if (typeof name === 'string' && /^[A-Za-z]{1,64}$/.test(name)) kinds.push(name);
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]{1,63}$/.test(code)) kinds.push(code);
  }
  return [...new Set(kinds)].join(', ') || 'unknown';
}

type ErrorLike = { name?: unknown; code?: unknown; message?: unknown; cause?: unknown };

/** The error and the causes it carries (a few deep: the library wraps Node's, which wraps the system's). */
function chainOf(error: unknown): ErrorLike[] {
  const chain: ErrorLike[] = [];
  for (let e = error; e !== null && typeof e === 'object' && chain.length < 5; e = (e as ErrorLike).cause)
    chain.push(e as ErrorLike);
  return chain;
}
