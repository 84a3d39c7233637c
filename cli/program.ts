/**
 * The `service-auth` command line without the process around it: the commands registered, and one
 * command line run against given streams, to its exit status. cli/index.ts runs it on the
 * process's own streams; tests run it in-process (test/cli/in-process.ts).
 */
import { Builtins, Cli, type BaseContext, type Command } from 'clipanion';
import { authCommands } from './commands/index.js';
import { EXIT_USAGE } from './commands/failures.js';
import { packageVersion } from './package-version.js';

/** The CLI; `colors` only when its output is a terminal that has them. */
export function createCli(colors: boolean): Cli {
  const cli = new Cli({
    binaryLabel: 'service-auth',
    binaryName: 'service-auth',
    binaryVersion: packageVersion(),
    enableColors: colors,
  });
  for (const command of authCommands) cli.register(command);
  cli.register(Builtins.HelpCommand);
  cli.register(Builtins.VersionCommand);
  return cli;
}

/** Runs one command line; `coloredErrors` when stderr is a terminal that has colours. */
export async function runCommandLine(
  cli: Cli,
  args: string[],
  context: BaseContext,
  coloredErrors = false,
): Promise<number> {
  let command: Command;
  try {
    command = cli.process(args, context);
  } catch (error) {
    // clipanion writes parse errors to stdout; an operator's scripts expect them on stderr.
    context.stderr.write((await commandNotFound(cli, args, error)) ?? cli.error(error, { colored: coloredErrors }));
    return EXIT_USAGE;
  }
  return cli.run(command, context);
}

/**
 * A command line that names no command, answered with the nearest command when one is near
 * (`service-auth list-users`: did you mean "service-auth auth list-users"?), instead of
 * clipanion's list of every command; undefined for any other error.
 */
async function commandNotFound(cli: Cli, args: string[], error: unknown): Promise<string | undefined> {
  if (!(error instanceof Error && error.name === 'UnknownSyntaxError' && error.message.startsWith('Command not found')))
    return undefined;
  const { nearestCommand, usageError } = await import('./commands/nearest-command.js');
  const nearest = nearestCommand(
    args,
    authCommands.flatMap((command) => command.paths ?? []),
  );
  if (nearest === undefined) return undefined;
  // Named exactly, but the rest does not parse for it: clipanion's error for that command alone.
  const named =
    nearest.typed === nearest.name
      ? authCommands.find((command) => command.paths?.some((path) => path.join(' ') === nearest.name))
      : undefined;
  if (named) return `${usageError(named, args, cli.binaryName)}\n`;
  return `Unknown command "${nearest.typed}"; did you mean "${cli.binaryName} ${nearest.name}"? See ${cli.binaryName} --help\n`;
}
