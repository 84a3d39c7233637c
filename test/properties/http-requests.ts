/**
 * fast-check arbitraries for the fuzz suite: requests for every endpoint of the auth router, with
 * odd bodies, content types, encodings, paths and headers, as plain data (see http-harness.ts for the
 * placeholders they carry instead of credentials).
 */
import fc from 'fast-check';
import { assembleToken } from '../../src/tokens/format.js';
import { PASSWORD } from '../helpers/app.js';
import { HTML } from '../helpers/forms.js';
import { SEEDED_EMAIL, type FuzzRequest } from './http-harness.js';

/** The auth router's endpoints; `:id` is a token id, and `query` what the endpoint's URL carries. */
const ENDPOINTS = [
  ['POST', '/register'],
  ['POST', '/login'],
  ['POST', '/logout'],
  ['GET', '/me'],
  ['POST', '/forgot'],
  ['POST', '/reset'],
  ['GET', '/login'],
  ['GET', '/register'],
  ['GET', '/forgot'],
  ['GET', '/reset', 'token='],
  ['GET', '/tokens'],
  ['GET', '/tokens/:id/revoke'],
  ['GET', '/api/abilities'],
  ['GET', '/api/tokens'],
  ['POST', '/api/tokens'],
  ['DELETE', '/api/tokens/:id'],
  ['POST', '/api/tokens/:id/revoke'],
  ['POST', '/password'],
  ['POST', '/email'],
  ['DELETE', '/me'],
  ['POST', '/confirm'],
  ['POST', '/confirm/resend'],
  ['POST', '/confirm-email'],
  ['GET', '/api/sessions'],
  ['DELETE', '/api/sessions'],
  ['DELETE', '/api/sessions/:id'],
  ['GET', '/confirm', 'token='],
  ['GET', '/confirm-email', 'token='],
  ['GET', '/password'],
  ['GET', '/email'],
  ['GET', '/sessions'],
  ['GET', '/delete-account'],
  ['POST', '/delete-account'],
  ['POST', '/sessions/end-others'],
  ['POST', '/sessions/:id/end'],
] as const;
const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] as const;

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz';
const base62 = (length: number) =>
  fc.string({ unit: fc.constantFrom(...BASE62), minLength: length, maxLength: length });
const MALFORMED_ESCAPES = ['%ZZ', '%', '%00', '%C0%AF', '%ED%A0%80', '%uD800', '%%', '%2', '%FF%FE'];

/** Characters no field can hold, or that trip up logs and pages: NUL, lone surrogates, controls, bidi. */
const NASTY = [
  '\u0000',
  '\uD800',
  '\uDFFF',
  '\u202E',
  '\u2066',
  '\u200B',
  '\uFEFF',
  '\u0007',
  '\u001b',
  '\r',
  '\n',
  '\t',
  '\u2028',
  '\u0085',
];
const MARKUP = ['"', "'", '\\', '<', '>', '&', '%', '=', '@', '.', '😀', 'é', 'a', 'Z', '1', ' '];
/** Values the endpoints act on when they are right (the seeded user's email and password, a reset token) or nearly. */
const PLAUSIBLE = [
  SEEDED_EMAIL,
  PASSWORD,
  '{{RESET}}',
  'new@example.com',
  'FUZZ@EXAMPLE.COM',
  'deploy bot',
  'reports:read',
  '30',
  '/tokens',
  '//evil.example',
  '',
];

const shortText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...PLAUSIBLE),
  fc.string({ unit: fc.constantFrom(...NASTY, ...MARKUP), maxLength: 20 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
);
/** Any text, huge ones included (past the 16 KiB body limit, and a field's). */
const text: fc.Arbitrary<string> = fc.oneof(
  { weight: 15, arbitrary: shortText },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom('a', '\u0000', 'é', '😀', '\uD800'), fc.integer({ min: 300, max: 20_000 }))
      .map(([c, n]) => c.repeat(n)),
  },
);
const KEYS = [
  'email',
  'password',
  'current_password',
  'token',
  'name',
  'expires_in_days',
  'scopes',
  'next',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
];
const key = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...KEYS) }, { weight: 1, arbitrary: shortText });

/** JSON text, built by hand so that `__proto__` and repeated keys reach the wire as written. */
const json: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small' },
    text.map((s) => JSON.stringify(s)),
    fc.oneof(fc.integer(), fc.double()).map((n) => JSON.stringify(n)),
    fc.constantFrom('true', 'false', 'null', '1e400', '-0', '123456789012345678901234567890', '30', '1.5'),
    fc.array(tie('value'), { maxLength: 4 }).map((items) => `[${items.join(',')}]`),
    fc
      .array(fc.tuple(key, tie('value')), { maxLength: 5 })
      .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`),
  ),
})).value;
const jsonObject = fc
  .array(fc.tuple(key, json), { minLength: 1, maxLength: 6 })
  .map((entries) => `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${v}`).join(',')}}`);

/** Bodies an endpoint acts on: each of its fields or not, right (the seeded user's) or wrong. */
const FIELD_VALUES: Record<string, unknown[]> = {
  email: [SEEDED_EMAIL, 'other@example.com', 'FUZZ@EXAMPLE.COM', 'not-an-email', ''],
  password: [PASSWORD, 'short', 'password1234', ''],
  current_password: [PASSWORD, 'Wrong-Password-1'],
  token: ['{{RESET}}', 'x'],
  name: ['deploy bot', 'x'.repeat(101)],
  expires_in_days: [30, 1.5, '30', 'soon'],
  scopes: [['reports:read'], [], 'reports:read', ['Reports']],
  next: ['/tokens', '//evil.example', 'https://evil.example'],
};
const fields = fc.record(
  Object.fromEntries(
    Object.entries(FIELD_VALUES).map(([name, values]) => [
      name,
      fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...values) }, { weight: 1, arbitrary: shortText }),
    ]),
  ),
  // Email and password always (an empty one is among their values), so that logins succeed now and then.
  { requiredKeys: ['email', 'password'] },
);
const newEmail = base62(8).map((local) => ({ email: `${local}@example.com` }));
const plausible = fc
  .tuple(fields, fc.oneof({ weight: 3, arbitrary: fc.constant({}) }, { weight: 1, arbitrary: newEmail }))
  .map(([values, fresh]) => ({ ...values, ...fresh }));
const plausibleJson = plausible.map((values) => JSON.stringify(values));
const plausibleForm = plausible.map((values) =>
  Object.entries(values)
    .map(([name, value]) => `${name}=${encode(Array.isArray(value) ? value.join(' ') : String(value))}`)
    .join('&'),
);

/** A urlencoded pair: escaped properly, left raw, or with a broken %-escape. */
const formPair = fc.tuple(key, text, fc.constantFrom('escaped', 'raw', 'broken')).map(([k, v, how]) => {
  if (how === 'raw') return `${k}=${v}`;
  if (how === 'broken') return `${k}=${v.slice(0, 5)}${MALFORMED_ESCAPES[v.length % MALFORMED_ESCAPES.length]}`;
  return `${encode(k)}=${encode(v)}`;
});
const form = fc.array(formPair, { maxLength: 6 }).map((pairs) => pairs.join('&'));
const multipart = fc
  .tuple(key, text)
  .map(([k, v]) => `--x\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n--x--\r\n`);

const JSON_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'application/json; charset=UTF-16',
  'application/json; charset=latin1',
  'application/json; charset=bogus',
  'application/problem+json',
  'application/json;;',
];
const FORM_TYPES = [
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded; charset=utf-8',
  'application/x-www-form-urlencoded; charset=iso-8859-1',
  'application/x-www-form-urlencoded; charset=koi8-r',
];
const OTHER_TYPES = [
  'text/plain',
  'text/plain; charset=utf-8',
  'multipart/form-data; boundary=x',
  'multipart/form-data',
  '*/*',
  'application/octet-stream',
  'application/',
  '',
];

/** A header value Node will send: tab, printable ASCII and Latin-1 (not DEL). */
const headerText = fc.string({
  unit: fc
    .integer({ min: 0x1f, max: 0xff })
    .map((c) => (c === 0x1f ? '\t' : c === 0x7f ? ' ' : String.fromCharCode(c))),
  maxLength: 40,
});
const withJunk = (values: readonly string[]) =>
  fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...values) }, { weight: 1, arbitrary: headerText });

type Body = Pick<FuzzRequest, 'body' | 'raw'> & { type?: string };
const body: fc.Arbitrary<Body> = fc.oneof(
  {
    weight: 3,
    arbitrary: fc.record({
      body: plausibleJson,
      type: fc.constantFrom('application/json', 'application/json; charset=utf-8'),
    }),
  },
  { weight: 2, arbitrary: fc.record({ body: plausibleForm, type: fc.constant('application/x-www-form-urlencoded') }) },
  fc.record({ body: jsonObject, type: fc.constantFrom(...JSON_TYPES) }),
  fc.record({ body: form, type: fc.constantFrom(...FORM_TYPES) }),
  fc.record({
    body: fc.oneof(jsonObject, json, form, multipart, fc.constant('')),
    type: withJunk([...JSON_TYPES, ...FORM_TYPES, ...OTHER_TYPES]),
  }),
  fc.record({
    body: jsonObject.chain((s) => fc.nat(s.length - 1).map((n) => s.slice(0, n))),
    type: fc.constantFrom(...JSON_TYPES),
  }),
  fc.record({
    raw: fc.array(fc.nat(255), { maxLength: 64 }),
    type: withJunk([...JSON_TYPES, ...FORM_TYPES, ...OTHER_TYPES]),
  }),
  fc.record({ type: fc.constantFrom(...JSON_TYPES, ...FORM_TYPES) }, { requiredKeys: [] }),
);

/** Content-Encoding against what was done to the body: a match, a mismatch, or a value no parser knows. */
const ENCODINGS = [
  'identity',
  'gzip',
  'deflate',
  'br',
  'x-gzip',
  'compress',
  'zstd',
  'gzip, br',
  'GZIP',
  'identity, gzip',
  '',
];
const encoding = fc.record({
  compress: fc.oneof(
    { weight: 3, arbitrary: fc.constant(undefined) },
    { weight: 1, arbitrary: fc.constantFrom('gzip', 'deflate', 'br') as fc.Arbitrary<'gzip' | 'deflate' | 'br'> },
  ),
  header: fc.oneof(
    { weight: 3, arbitrary: fc.constant<string | undefined>(undefined) },
    { weight: 2, arbitrary: fc.constant('match') },
    { weight: 1, arbitrary: withJunk(ENCODINGS) },
  ),
});

/** Printable ASCII: Node's own parser answers a raw byte past it in a URL with a bare 400, before any application sees it. */
const segment = fc.string({
  unit: fc.integer({ min: 0x21, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 12,
});
const tokenId = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('{{TOKEN_ID}}', '{{OTHER_TOKEN_ID}}') },
  { weight: 2, arbitrary: base62(16) },
  {
    weight: 2,
    arbitrary: fc.oneof(segment, fc.constantFrom(...MALFORMED_ESCAPES, 'a%00b', '..', '%2F', 'x'.repeat(4000))),
  },
);
const suffix = fc.oneof(
  { weight: 6, arbitrary: fc.constant('') },
  {
    weight: 1,
    arbitrary: fc.constantFrom('/', '//', '/..', ';x=1', '.json', '/%2e%2e', 'x'.repeat(5000), ...MALFORMED_ESCAPES),
  },
  { weight: 1, arbitrary: segment.map((s) => `/${s}`) },
);
const queryText = fc.oneof(
  shortText.map(encode),
  segment,
  fc.constantFrom(...MALFORMED_ESCAPES, '{{TOKEN}}', '{{RESET}}'),
);

const path = fc
  .record({
    endpoint: fc.constantFrom(...ENDPOINTS),
    doubled: fc.oneof({ weight: 6, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constant('/') }),
    id: tokenId,
    suffix,
    query: fc.option(fc.tuple(fc.constantFrom('token', 'next', 'packed', 'reset', 'revoked', 'a'), queryText), {
      nil: undefined,
    }),
  })
  .map(({ endpoint, doubled, id, suffix, query }) => {
    const [method, route, fixed] = endpoint as readonly [string, string, string?];
    const params = [fixed, query && `${query[0]}=${query[1]}`].filter((p) => p !== undefined);
    const target = `/service-auth${doubled}${route.replace(':id', () => id)}${suffix}${params.length ? `?${params.join('&')}` : ''}`;
    return { method, target };
  });

const ACCEPTS = [
  HTML,
  'text/html',
  'application/json',
  '*/*',
  'application/problem+json',
  'text/html;q=0.1, application/json',
  'text/*',
  'image/png',
  'application/json;q=0',
  '',
];
const COOKIES = [
  '{{SESSION}}',
  'service_auth_session=',
  'junk=1; {{SESSION}}',
  '{{SESSION}}; service_auth_session=junk',
  '{{SESSION}}x',
  '__Host-{{SESSION}}',
];
const AUTHORIZATIONS = [
  'Bearer {{TOKEN}}',
  'bearer   {{TOKEN}}  ',
  'Bearer {{TOKEN}} extra',
  'Bearer {{TOKEN}}x',
  'Basic x',
  'Bearer ',
  'Bearer',
  'Bearer sat_',
  'Bearer sat__',
];
const authorization = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...AUTHORIZATIONS) },
  { weight: 1, arbitrary: headerText.map((s) => `Bearer ${s}`) },
  { weight: 1, arbitrary: fc.tuple(base62(16), base62(49)).map(([id, rest]) => `Bearer sat_${id}_${rest}`) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(base62(16), fc.uint8Array({ minLength: 32, maxLength: 32 }))
      .map(([id, secret]) => `Bearer ${assembleToken('sat', id, Buffer.from(secret))}`),
  },
  {
    weight: 1,
    arbitrary: fc
      .uint8Array({ minLength: 32, maxLength: 32 })
      .map((secret) => `Bearer {{FORGED:${Buffer.from(secret).toString('hex')}}}`),
  },
);
const headers = fc.record(
  {
    Accept: withJunk(ACCEPTS),
    'Sec-Fetch-Site': withJunk(['same-origin', 'same-site', 'cross-site', 'none', 'SAME-ORIGIN']),
    Origin: withJunk([
      'null',
      'http://localhost:3000',
      '{{SELF}}',
      'https://evil.example',
      'http://localhost:3000/',
      'http://localhost',
    ]),
    Cookie: fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...COOKIES) },
      { weight: 1, arbitrary: headerText },
      { weight: 1, arbitrary: base62(43).map((v) => `service_auth_session=${v}`) },
    ),
    Authorization: authorization,
  },
  { requiredKeys: [] },
);

/** Any request to the auth router: the endpoint's method mostly, a method it does not serve sometimes. */
export function anyRequest(): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      path,
      otherMethod: fc.oneof(
        { weight: 4, arbitrary: fc.constant(undefined) },
        { weight: 1, arbitrary: fc.constantFrom(...METHODS) },
      ),
      headers,
      body,
      encoding,
      chunked: fc.oneof({ weight: 5, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }),
    })
    .map(({ path, otherMethod, headers, body, encoding, chunked }) => {
      const all: Record<string, string> = { ...headers };
      if (body.type !== undefined) all['Content-Type'] = body.type;
      if (encoding.header !== undefined)
        all['Content-Encoding'] = encoding.header === 'match' ? (encoding.compress ?? 'identity') : encoding.header;
      const request: FuzzRequest = { method: otherMethod ?? path.method, path: path.target, headers: all };
      if (body.body !== undefined) request.body = body.body;
      if (body.raw !== undefined) request.raw = body.raw;
      const hasBody = body.body !== undefined || body.raw !== undefined;
      if (encoding.compress && hasBody) request.compress = encoding.compress;
      if (chunked && hasBody) request.chunked = true;
      return request;
    });
}

/**
 * What a browser sends from our own pages: a form post (urlencoded, preferring HTML, same-site
 * mostly), or a navigation to one of the pages with what a form would carry in its query.
 */
export function browserRequest(): fc.Arbitrary<FuzzRequest> {
  const posted = [
    ...['/register', '/login', '/logout', '/forgot', '/reset', '/api/tokens', '/api/tokens/{{TOKEN_ID}}/revoke'],
    ...[
      '/password',
      '/email',
      '/delete-account',
      '/confirm',
      '/confirm/resend',
      '/confirm-email',
      '/sessions/end-others',
      '/sessions/{{TOKEN_ID}}/end',
    ],
  ];
  const pages = [
    '/register',
    '/login',
    '/forgot',
    '/reset',
    '/tokens',
    '/tokens/{{TOKEN_ID}}/revoke',
    '/confirm',
    '/confirm-email',
    '/password',
    '/email',
    '/sessions',
    '/delete-account',
  ];
  const site = fc.oneof(
    { weight: 4, arbitrary: fc.constant('same-origin') },
    { weight: 1, arbitrary: fc.constantFrom('cross-site', 'same-site', 'none') },
  );
  return fc
    .record({
      navigate: fc.boolean(),
      posted: fc.constantFrom(...posted),
      page: fc.constantFrom(...pages),
      body: fc.oneof(plausibleForm, form),
      accept: fc.constantFrom(HTML, 'text/html'),
      site,
      loggedIn: fc.boolean(),
    })
    .map(({ navigate, posted, page, body, accept, site, loggedIn }) => {
      const headers: Record<string, string> = { Accept: accept, 'Sec-Fetch-Site': site };
      if (loggedIn) headers['Cookie'] = '{{SESSION}}';
      // A query as long as a big form would pass Node's 16 KiB header limit: that one is posted.
      if (navigate && body.length < 2000)
        return { method: 'GET', path: sendable(`/service-auth${page}?${body}`), headers };
      return {
        method: 'POST',
        path: `/service-auth${posted}`,
        headers: { ...headers, 'Content-Type': 'application/x-www-form-urlencoded' },
        body,
      };
    });
}

/** `encodeURIComponent`, which refuses a lone surrogate: that one goes out as its replacement. */
function encode(value: string): string {
  return encodeURIComponent(value.toWellFormed());
}

/** A request target of printable ASCII (see `segment`): the rest %-escaped. */
function sendable(target: string): string {
  return target.replace(/[^\u0021-\u007e]/gu, (c) => encode(c));
}
