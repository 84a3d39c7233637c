/** Requests to a running demo as an API client sends them: JSON in and out, a session cookie per user. */
import { expect } from 'chai';
import { PASSWORD } from '../helpers/app.js';

export interface Answer {
  status: number;
  /** The parsed JSON (a test reads what it expects), or the text. */
  body: any;
  headers: Headers;
}

export class DemoClient {
  /** The session cookie (`name=value`) of each user who logged in or registered, by email. */
  private readonly cookies = new Map<string, string>();

  constructor(readonly url: string) {}

  /** `method path` as `who` (an email that logged in or registered; nobody without it), with a JSON body if given. */
  async call(method: string, path: string, who?: string, body?: unknown): Promise<Answer> {
    const headers: Record<string, string> = { Accept: 'application/json' };
    if (who) headers['Cookie'] = this.cookieOf(who);
    if (body !== undefined) headers['Content-Type'] = 'application/json';
    const response = await fetch(`${this.url}${path}`, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
      redirect: 'manual',
    });
    const type = response.headers.get('content-type') ?? '';
    return {
      status: response.status,
      body: type.includes('json') ? await response.json() : await response.text(),
      headers: response.headers,
    };
  }

  get(path: string, who?: string): Promise<Answer> {
    return this.call('GET', path, who);
  }

  async login(email: string, password = PASSWORD): Promise<void> {
    this.keepCookie(email, await this.post('/service-auth/login', { email, password }), 200);
  }

  /** Registers over HTTP (and so is logged in); answers the user the API returned. */
  async register(email: string, password = PASSWORD): Promise<{ id: number; roles: string[] }> {
    const response = await this.post('/service-auth/register', { email, password });
    this.keepCookie(email, response, 201);
    return ((await response.json()) as { user: { id: number; roles: string[] } }).user;
  }

  private post(path: string, body: unknown): Promise<Response> {
    return fetch(`${this.url}${path}`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });
  }

  private keepCookie(email: string, response: Response, status: number): void {
    expect(response.status, `${email}: ${response.url}`).to.equal(status);
    const cookie = response.headers.getSetCookie().find((c) => c.startsWith('service_auth_session='));
    expect(cookie, 'a session cookie').to.be.a('string');
    this.cookies.set(email, cookie!.split(';')[0]!);
  }

  private cookieOf(email: string): string {
    const cookie = this.cookies.get(email);
    if (!cookie) throw new Error(`${email} has not logged in`);
    return cookie;
  }
}
