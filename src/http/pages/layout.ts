/** The shell of the built-in pages: plain, accessible HTML without scripts. */

export function escapeHtml(value: unknown): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

export interface Notice {
  kind: 'error' | 'info';
  text: string;
  /** Extra lines, e.g. every failed password rule. */
  items?: string[];
}

export function layout(title: string, body: string, notice?: Notice): string {
  return `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <meta name="viewport" content="width=device-width, initial-scale=1">
  <meta name="referrer" content="no-referrer">
  <title>${escapeHtml(title)}</title>
  <style>
    body { font-family: system-ui, sans-serif; max-width: 32rem; margin: 3rem auto; padding: 0 1rem; line-height: 1.5; }
    label { display: block; margin-top: 1rem; font-weight: 600; }
    input { font: inherit; width: 100%; padding: .4rem; box-sizing: border-box; }
    button { font: inherit; margin-top: 1.25rem; padding: .5rem 1.25rem; }
    .notice { padding: .75rem 1rem; border-radius: .25rem; }
    .error { background: #fde8e8; color: #7a1010; }
    .info { background: #e6f0fd; color: #0b3a7a; }
    table { border-collapse: collapse; width: 100%; } th, td { text-align: left; padding: .25rem .5rem; border-bottom: 1px solid #ddd; }
    code { word-break: break-all; }
    .visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
  </style>
</head>
<body>
  <main>
    <h1>${escapeHtml(title)}</h1>
${notice ? noticeHtml(notice) : ''}${body}
  </main>
</body>
</html>
`;
}

function noticeHtml(notice: Notice): string {
  const role = notice.kind === 'error' ? 'alert' : 'status';
  const items = notice.items?.length ? `<ul>${notice.items.map((item) => `<li>${escapeHtml(item)}</li>`).join('')}</ul>` : '';
  return `    <div class="notice ${notice.kind}" role="${role}"><p>${escapeHtml(notice.text)}</p>${items}</div>\n`;
}
