#!/usr/bin/env node
/**
 * `service-auth`: the operator's command line (`npx service-auth auth <command>`). Usage errors
 * and failures go to stderr; stdout carries only what a command prints. The process exits when
 * the command is done, even if an application loaded with `--app` left a server or timer open.
 */
import { Cli } from 'clipanion';
import { createCli, runCommandLine } from './program.js';

// clipanion colours whenever the terminal type could; only a terminal should get escape codes.
const cli = createCli(process.stdout.isTTY === true && process.stdout.hasColors());
const exitCode = await runCommandLine(
  cli,
  process.argv.slice(2),
  Cli.defaultContext,
  process.stderr.isTTY === true && process.stderr.hasColors(),
);
await Promise.all([drained(process.stdout), drained(process.stderr)]);
process.exit(exitCode);

/** Resolves once what was written to the stream has been handed to the system. */
function drained(stream: NodeJS.WriteStream): Promise<void> {
  return new Promise((resolve) => stream.write('', () => resolve()));
}
