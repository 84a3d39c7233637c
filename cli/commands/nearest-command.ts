/**
 * "Did you mean": the command nearest to a command line that names none, by edit distance over the
 * command's words (`auth creat-user` is one edit from `auth create-user`, `list-users` is
 * `auth list-users` with the group left out). Loaded only when a command line names no command,
 * so that `--help` and `--version` never load it.
 */
import { Cli, type CommandClass } from 'clipanion';
import { distance } from 'fastest-levenshtein';

/** A command near what was typed: its name, and the words typed for it. */
export interface NearestCommand {
  /** `auth create-user`. */
  name: string;
  /** `auth creat-user`, or `creat-user` with the group left out. */
  typed: string;
}

/**
 * The command path nearest to the words typed, or undefined when none is near enough to be what
 * was meant. `paths` are the commands' clipanion paths; options and whatever follows the first of
 * them are not command words.
 */
export function nearestCommand(
  args: readonly string[],
  paths: readonly (readonly string[])[],
): NearestCommand | undefined {
  const firstOption = args.findIndex((arg) => arg.startsWith('-'));
  const words = firstOption === -1 ? args : args.slice(0, firstOption);
  let best: (NearestCommand & { distance: number; length: number }) | undefined;
  for (const path of paths) {
    if (path.length === 0 || path.some((word) => word.startsWith('-'))) continue;
    const name = path.join(' ');
    const readings = [{ typed: words.slice(0, path.length), read: words.slice(0, path.length) }];
    // The group's name left out: `service-auth list-users` for `service-auth auth list-users`.
    if (path.length > 1 && words[0] !== path[0]) {
      const typed = words.slice(0, path.length - 1);
      readings.push({ typed, read: [path[0]!, ...typed] });
    }
    for (const { typed, read } of readings) {
      const edits = distance(read.join(' '), name);
      // A command typed exactly, more words after it, is not the one missing (`auth audit rune`
      // is `auth audit prune` mistyped, not `auth audit` with an argument).
      if (edits === 0 && words.length > read.length) continue;
      // On a tie the longer path: `auht list-users` means `auth list-users` more than `auth`.
      if (!best || edits < best.distance || (edits === best.distance && path.length > best.length)) {
        best = { name, typed: typed.join(' '), distance: edits, length: path.length };
      }
    }
  }
  // A few edits, more for a longer name; anything further is a different word, not a typo.
  if (!best || best.distance > Math.max(2, Math.floor(best.name.length / 4))) return undefined;
  return { name: best.name, typed: best.typed };
}

/**
 * Clipanion's error for a command line meant for `command` alone, without a trailing newline: for
 * a command named exactly whose options or arguments do not parse (a required one missing, say).
 */
export function usageError(command: CommandClass, args: string[], binaryName: string): string {
  const cli = new Cli({ binaryLabel: binaryName, binaryName, enableColors: false });
  cli.register(command);
  try {
    cli.process(args);
  } catch (error) {
    return cli.error(error).trimEnd();
  }
  return `${binaryName} ${args.join(' ')}: see ${binaryName} ${args.slice(0, 2).join(' ')} --help`;
}
