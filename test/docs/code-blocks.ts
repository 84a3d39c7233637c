/**
 * The fenced code blocks of a Markdown document, each with the line its code starts on, and which
 * of them are TypeScript to type-check: a block fenced ```ts (or ```typescript), unless its info
 * string also says `fragment` (```ts fragment), which marks code not meant to compile on its own.
 * A block for one MikroORM major says so (```ts mikro-orm-7): it is checked when that one is installed.
 */

export interface CodeBlock {
  /** The fence's info string, as written: `ts`, `ts fragment`, `sh`, `json`, … */
  info: string;
  /** The 1-based line of the document on which the block's first line of code stands. */
  line: number;
  /** The code, without the fences and without the indentation of the opening fence. */
  code: string;
}

const OPENING = /^( {0,3})(`{3,}|~{3,})[ \t]*([^`]*)$/;
const CLOSING = /^ {0,3}(`{3,}|~{3,})[ \t]*$/;

/** Every fenced block of the document, in order; an unclosed block runs to the end, as CommonMark says. */
export function codeBlocks(markdown: string): CodeBlock[] {
  const blocks: CodeBlock[] = [];
  let open: { indent: number; fence: string; info: string; line: number; lines: string[] } | undefined;
  markdown.split('\n').forEach((text, index) => {
    if (!open) {
      const match = OPENING.exec(text);
      if (match)
        open = { indent: match[1]!.length, fence: match[2]!, info: match[3]!.trim(), line: index + 2, lines: [] };
      return;
    }
    const closing = CLOSING.exec(text);
    if (closing && closing[1]![0] === open.fence[0] && closing[1]!.length >= open.fence.length) {
      blocks.push({ info: open.info, line: open.line, code: open.lines.join('\n') + '\n' });
      open = undefined;
      return;
    }
    const leading = text.length - text.trimStart().length;
    open.lines.push(text.slice(Math.min(open.indent, leading)));
  });
  if (open) blocks.push({ info: open.info, line: open.line, code: open.lines.join('\n') + '\n' });
  return blocks;
}

/** Whether the block is TypeScript, and whether it is to compile on its own. */
export function typeScriptKind(block: CodeBlock): 'module' | 'fragment' | undefined {
  const [language, ...rest] = block.info.split(/\s+/);
  if (language !== 'ts' && language !== 'typescript') return undefined;
  return rest.includes('fragment') ? 'fragment' : 'module';
}

/** The MikroORM major a block is written for (```ts mikro-orm-6), if it names one. */
export function mikroOrmMajorOf(block: CodeBlock): number | undefined {
  const major = /\bmikro-orm-(\d+)\b/.exec(block.info)?.[1];
  return major === undefined ? undefined : Number(major);
}
