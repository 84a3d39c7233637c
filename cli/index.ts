#!/usr/bin/env node
/**
 * `service-auth`: the operator's command line (`npx service-auth auth <command>`). Usage errors
 * and failures go to stderr; stdout carries only what a command prints. The process exits when
 * the command is done, even if an application loaded with `--app` left a server or timer open.
 */
import { Builtins, Cli, type Command } from 'clipanion';
import { authCommands } from './commands/index.js';
import { EXIT_USAGE } from './commands/failures.js';
import { packageVersion } from './package-version.js';

const cli = new Cli({
  binaryLabel: 'service-auth',
  binaryName: 'service-auth',
  binaryVersion: packageVersion(),
  // clipanion colours whenever the terminal type could; only a terminal should get escape codes.
  enableColors: process.stdout.isTTY === true && process.stdout.hasColors(),
});
for (const command of authCommands) cli.register(command);
cli.register(Builtins.HelpCommand);
cli.register(Builtins.VersionCommand);

const exitCode = await run(process.argv.slice(2));
await Promise.all([drained(process.stdout), drained(process.stderr)]);
process.exit(exitCode);

async function run(args: string[]): Promise<number> {
  let command: Command;
  try {
    command = cli.process(args);
  } catch (error) {
    // clipanion writes parse errors to stdout; an operator's scripts expect them on stderr.
    process.stderr.write(cli.error(error, { colored: process.stderr.isTTY === true && process.stderr.hasColors() }));
    return EXIT_USAGE;
  }
  return cli.run(command);
}

/** Resolves once what was written to the stream has been handed to the system. */
function drained(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => stream.write('', () => resolve()));
}
