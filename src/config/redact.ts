/**
 * URLs as messages and logs may show them: a password in the user part (`user:secret@host`) or in
 * the query string (`?password=secret`, as libpq and node-postgres accept it) is replaced by `***`.
 */
const SECRET_PARAMETER = /^(?:.*pass(?:word)?|pwd|.*secret|.*token)$/i;

export function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    let changed = false;
    if (parsed.password) {
      parsed.password = '***';
      changed = true;
    }
    for (const name of [...parsed.searchParams.keys()]) {
      if (SECRET_PARAMETER.test(name)) {
        parsed.searchParams.set(name, '***');
        changed = true;
      }
    }
    if (changed) return parsed.toString();
  } catch {
    // not a URL: nothing to redact by structure; hide anything that looks like a password
  }
  return url
    .replace(/(\/\/[^:/@]+):[^@/]*@/, '$1:***@')
    .replace(/([?&](?:[^=&]*pass(?:word)?|pwd|[^=&]*secret|[^=&]*token)=)[^&#\s]*/gi, '$1***');
}
