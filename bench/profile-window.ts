/**
 * A CPU profile of the bench server taken from inside it, over just the window bench/profile.ts
 * loads a route in (`node --cpu-prof` would include start-up: migrations, the login's password
 * hash). Started and stopped by the server's `startProfile` and `stopProfile` commands.
 */
import { writeFile } from 'node:fs/promises';
import { Session } from 'node:inspector/promises';

const profiler = new Session();

/** Starts sampling, every `intervalMicros` (100 µs by default). */
export async function startProfile(intervalMicros = 100): Promise<void> {
  profiler.connect();
  await profiler.post('Profiler.enable');
  await profiler.post('Profiler.setSamplingInterval', { interval: intervalMicros });
  await profiler.post('Profiler.start');
}

/** Stops sampling and writes the profile (V8's JSON, as bench/cpuprofile.ts reads it) to `path`. */
export async function stopProfile(path: string): Promise<void> {
  const { profile } = await profiler.post('Profiler.stop');
  profiler.disconnect();
  await writeFile(path, JSON.stringify(profile));
}
