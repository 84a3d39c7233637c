/**
 * A real OpenID provider for the tests (`oidc-provider`), on 127.0.0.1: discovery, JWKS, the
 * authorization and token endpoints and user-info, issuing real ID tokens signed with its own key.
 * Its login is this helper's: the account set in `signInAs` is signed in at once (with its `amr`),
 * or, with none set, a one-field form asks which account (what the browser test fills in).
 *
 * `tamperNextIdToken` changes the next token response on its way out, as a man in the middle
 * would: a payload changed under its signature, or claims re-signed with the provider's own key
 * (an ID token for another audience or from another issuer, properly signed).
 */
import { createServer, type Server } from 'node:http';
import { decodeJwt, exportJWK, generateKeyPair, SignJWT, type CryptoKey } from 'jose';
import { freePort } from './ports.js';

export interface ProviderAccount {
  sub: string;
  email: string;
  email_verified: boolean;
  name?: string;
}

export interface ProviderClient {
  clientId: string;
  clientSecret: string;
  redirectUris: string[];
}

type Tamper = 'signature' | { iss?: string; aud?: string };

export interface TestProvider {
  readonly issuer: string;
  readonly accounts: Map<string, ProviderAccount>;
  /**
   * Who the provider signs in at the next authorization, and how (RFC 8176 `amr`); `deny`: the
   * person refuses (`error=access_denied`); null shows the login form.
   */
  signInAs: { sub: string; amr?: string[] } | 'deny' | null;
  tamperNextIdToken(change: Tamper): void;
  close(): Promise<void>;
}

interface KoaContext {
  path: string;
  method: string;
  req: import('node:http').IncomingMessage;
  res: import('node:http').ServerResponse;
  status: number;
  type: string;
  body: unknown;
  redirect(url: string): void;
}
interface OidcProvider {
  use(middleware: (ctx: KoaContext, next: () => Promise<void>) => Promise<void>): void;
  callback(): (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse) => void;
  interactionDetails(req: unknown, res: unknown): Promise<{ params: Record<string, unknown> }>;
  interactionResult(req: unknown, res: unknown, result: unknown, options?: unknown): Promise<string>;
  Grant: new (options: { accountId: string; clientId: string }) => {
    addOIDCScope(scope: string): void;
    save(): Promise<string>;
  };
}

const KID = 'test-signing-key';

export async function startTestProvider(clients: ProviderClient[]): Promise<TestProvider> {
  const port = await freePort();
  const issuer = `http://127.0.0.1:${port}`;
  const { privateKey } = await generateKeyPair('RS256', { extractable: true });
  const jwk = { ...(await exportJWK(privateKey)), kid: KID, alg: 'RS256', use: 'sig' };
  const accounts = new Map<string, ProviderAccount>();
  let tamper: Tamper | undefined;

  // Untyped package (no declarations ship with it): its few members used here are typed above.
  const moduleName = 'oidc-provider';
  const { default: Provider } = (await import(moduleName)) as {
    default: new (issuer: string, config: unknown) => OidcProvider;
  };
  const provider = new Provider(issuer, {
    clients: clients.map((c) => ({
      client_id: c.clientId,
      client_secret: c.clientSecret,
      redirect_uris: c.redirectUris,
      grant_types: ['authorization_code'],
      response_types: ['code'],
      token_endpoint_auth_method: 'client_secret_basic',
    })),
    jwks: { keys: [jwk] },
    cookies: { keys: ['test-provider-cookie-key'] },
    claims: { openid: ['sub', 'amr'], email: ['email', 'email_verified'], profile: ['name'] },
    features: { devInteractions: { enabled: false } },
    interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
    async findAccount(_ctx: unknown, sub: string) {
      const account = accounts.get(sub);
      return account && { accountId: sub, claims: async () => ({ ...account }) };
    },
  });

  const helper: TestProvider = {
    issuer,
    accounts,
    signInAs: null,
    tamperNextIdToken(change) {
      tamper = change;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };

  provider.use(async (ctx, next) => {
    if (ctx.path.startsWith('/interaction/')) {
      await interaction(ctx);
      return;
    }
    await next();
    const body = ctx.body as { id_token?: string } | undefined;
    if (ctx.path === '/token' && tamper && typeof body?.id_token === 'string') {
      ctx.body = { ...body, id_token: await tampered(body.id_token, tamper, privateKey) };
      tamper = undefined;
    }
  });

  /** The provider's login: the account chosen (or set beforehand) is signed in, and consents at once. */
  async function interaction(ctx: KoaContext): Promise<void> {
    const details = await provider.interactionDetails(ctx.req, ctx.res);
    let login = helper.signInAs;
    if (ctx.method === 'POST')
      login = { sub: new URLSearchParams(await readBody(ctx.req)).get('login') ?? '', amr: ['pwd'] };
    if (!login) {
      ctx.type = 'html';
      ctx.body = `<!doctype html><title>Test provider</title><h1>Test provider</h1><form method="post"><label>Account <input name="login"></label><button type="submit">Continue</button></form>`;
      return;
    }
    if (login === 'deny') {
      ctx.status = 303;
      ctx.redirect(
        await provider.interactionResult(
          ctx.req,
          ctx.res,
          { error: 'access_denied', error_description: 'The person said no' },
          { mergeWithLastSubmission: false },
        ),
      );
      return;
    }
    const grant = new provider.Grant({ accountId: login.sub, clientId: String(details.params['client_id']) });
    grant.addOIDCScope(String(details.params['scope']));
    const grantId = await grant.save();
    const result = { login: { accountId: login.sub, amr: login.amr ?? ['pwd'] }, consent: { grantId } };
    ctx.status = 303;
    ctx.redirect(await provider.interactionResult(ctx.req, ctx.res, result, { mergeWithLastSubmission: false }));
  }

  const server: Server = createServer(provider.callback());
  // Clients keep connections open between requests (undici's pool): the server's 5-second default
  // would close one just as a slow test step reuses it (ECONNRESET). close() ends them all.
  server.keepAliveTimeout = 120_000;
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return helper;
}

async function tampered(idToken: string, change: Tamper, key: CryptoKey): Promise<string> {
  const claims = decodeJwt(idToken);
  if (change === 'signature') {
    // The same header and signature over a payload that says something else.
    const [header, , signature] = idToken.split('.');
    const payload = Buffer.from(JSON.stringify({ ...claims, email: 'someone-else@example.com' })).toString('base64url');
    return `${header}.${payload}.${signature}`;
  }
  return new SignJWT({ ...claims, ...change }).setProtectedHeader({ alg: 'RS256', kid: KID }).sign(key);
}

function readBody(req: import('node:http').IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (chunk: string) => (body += chunk));
    req.on('end', () => resolve(body));
    req.on('error', reject);
  });
}

/**
 * A browser's trip through the provider, by hand: from the authorization URL our app redirected
 * to, each redirect followed with the provider's cookies, until one leads back off the provider
 * (our callback, with the code or an error). Returns that URL.
 */
export async function throughProvider(
  provider: TestProvider,
  authorizationUrl: string,
  rewrite?: (url: URL) => void,
): Promise<URL> {
  const jar = new Map<string, string>();
  let url = new URL(authorizationUrl);
  rewrite?.(url);
  for (let hops = 0; hops < 10; hops++) {
    if (!url.href.startsWith(provider.issuer)) return url;
    const cookie = [...jar].map(([name, value]) => `${name}=${value}`).join('; ');
    const response = await fetch(url, { redirect: 'manual', headers: cookie ? { cookie } : {} });
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      jar.set(pair!.slice(0, at), pair!.slice(at + 1));
    }
    const location = response.headers.get('location');
    if (!location)
      throw new Error(
        `the provider answered ${response.status} without a redirect: ${(await response.text()).slice(0, 300)}`,
      );
    url = new URL(location, url);
  }
  throw new Error('too many redirects at the provider');
}
