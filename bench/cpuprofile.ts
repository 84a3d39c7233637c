/**
 * Reading a V8 CPU profile (the JSON that `node --cpu-prof` and the inspector's Profiler write):
 * where the samples fell, by function and by package (self time). Self time is what can be
 * trusted here: V8 drops some frames of optimized code (a promise callback's, often), so a
 * function's inclusive time would miss work it did.
 */

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}

export interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface Share {
  name: string;
  /** Microseconds of samples. */
  micros: number;
}

/** The frame of samples taken while the thread waited for work. ("(program)" is native work.) */
const IDLE = '(idle)';

export class ProfileReader {
  private readonly byId = new Map<number, ProfileNode>();
  /** Microseconds each sample stands for: the gap to the next sample. */
  private readonly weights: number[];

  constructor(private readonly profile: CpuProfile) {
    for (const node of profile.nodes) this.byId.set(node.id, node);
    const deltas = profile.timeDeltas;
    this.weights = profile.samples.map((_, i) => deltas[i + 1] ?? 0);
  }

  /** Microseconds of samples that were not idle: JavaScript, GC and native work. */
  busyMicros(): number {
    let busy = 0;
    this.forEachSample((node, weight) => {
      if (node.callFrame.functionName !== IDLE) busy += weight;
    });
    return busy;
  }

  /** Self time grouped by `keyOf` (a function, a package …), largest first. */
  selfTime(keyOf: (frame: CallFrame) => string): Share[] {
    const totals = new Map<string, number>();
    this.forEachSample((node, weight) => {
      if (node.callFrame.functionName === IDLE) return;
      const key = keyOf(node.callFrame);
      totals.set(key, (totals.get(key) ?? 0) + weight);
    });
    return sorted(totals);
  }

  private forEachSample(visit: (node: ProfileNode, weight: number) => void): void {
    this.profile.samples.forEach((id, i) => visit(this.byId.get(id)!, this.weights[i]!));
  }
}

/** "express", "rate-limiter-flexible", "dist/src/rate-limit/middleware.js", "node internals", "(garbage collector)" … */
export function packageOf(frame: CallFrame): string {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const inModules = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url);
  if (inModules) return inModules[1]!;
  if (url.startsWith('node:')) return 'node internals';
  const ours = /\/(dist\/src\/.*|bench\/[^/]+)$/.exec(url);
  return ours ? ours[1]! : url;
}

export function functionOf(frame: CallFrame): string {
  const where = frame.url ? `${packageOf(frame)}:${frame.lineNumber + 1}` : '';
  return `${frame.functionName || '(anonymous)'} ${where}`.trim();
}

function sorted(totals: Map<string, number>): Share[] {
  return [...totals].map(([name, micros]) => ({ name, micros })).sort((a, b) => b.micros - a.micros);
}
