/**
 * An application loaded with `--app` is the operator's module as it runs in production: it may
 * call `app.listen(3000)` and `console.log('Listening on …')` when it loads. For the CLI, neither
 * may happen: stdout carries only the command's output (`TOKEN=$(… create-token --app app.ts)`),
 * and the command must not start a server (nor fail because the real one holds the port).
 *
 * So, while a command with `--app` runs, what the application writes to stdout (console.log,
 * process.stdout.write) goes to the command's stderr, and what it writes to file descriptor 1
 * itself (a logger's own stream, as pino's default destination does) to descriptor 2; a server
 * it starts listens on an ephemeral port of the loopback interface, answering the application's
 * callback and `listening` handlers as a server does, and is closed at once. The command itself prints through the stdout
 * returned here. Everything is put back when the command ends.
 */
import fs from 'node:fs';
import { Server } from 'node:net';
import type { Writable } from 'node:stream';

export interface QuietApplication {
  /** Where the command prints its own output. */
  stdout: Writable;
  /** Puts stdout, `fs.write`, `fs.writeSync` and `listen` back as they were. */
  restore(): void;
}

type Write = typeof process.stdout.write;

/** Diverts the process's stdout to `stderr`, and keeps servers from listening, until `restore()`. */
export function quietApplication(stdout: Writable, stderr: Writable): QuietApplication {
  const processStdout = process.stdout;
  const write = Object.getOwnPropertyDescriptor(processStdout, 'write');
  const originalWrite: Write = processStdout.write;
  processStdout.write = ((...args: Parameters<Write>) =>
    stderr.write(...(args as Parameters<Writable['write']>))) as Write;
  // The command's own output still reaches the process's stdout when that is where it goes.
  const own = stdout === processStdout ? withWrite(processStdout, originalWrite) : stdout;

  const { write: fsWrite, writeSync: fsWriteSync } = fs;
  const toStderr = (fd: unknown): unknown => (fd === 1 ? 2 : fd);
  fs.write = ((fd: unknown, ...rest: unknown[]) =>
    (fsWrite as (...args: unknown[]) => void)(toStderr(fd), ...rest)) as typeof fs.write;
  fs.writeSync = ((fd: unknown, ...rest: unknown[]) =>
    (fsWriteSync as (...args: unknown[]) => number)(toStderr(fd), ...rest)) as typeof fs.writeSync;

  const listen = Server.prototype.listen;
  Server.prototype.listen = function (this: Server, ...args: unknown[]): Server {
    const callback = args.find((arg) => typeof arg === 'function') as (() => void) | undefined;
    listen.call(this, { port: 0, host: '127.0.0.1' }, callback);
    // After the application's own callback, which may ask the server its address.
    return this.once('listening', () => this.close());
  } as typeof listen;

  return {
    stdout: own,
    restore(): void {
      Server.prototype.listen = listen;
      Object.assign(fs, { write: fsWrite, writeSync: fsWriteSync });
      if (write) Object.defineProperty(processStdout, 'write', write);
      else delete (processStdout as { write?: Write }).write;
    },
  };
}

/** The stream, with `write` the original one (the stream's own has been diverted). */
function withWrite(stream: NodeJS.WriteStream, write: Write): Writable {
  return Object.create(stream, {
    write: { value: (...args: Parameters<Write>) => write.apply(stream, args) },
  }) as Writable;
}
