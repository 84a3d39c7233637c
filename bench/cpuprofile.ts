/**
 * Reading a V8 CPU profile (the JSON that `node --cpu-prof` and the inspector's Profiler write):
 * where the samples fell, by function and by package, self and inclusive.
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
  private readonly parent = new Map<number, number>();
  /** Microseconds each sample stands for: the gap to the next sample. */
  private readonly weights: number[];

  constructor(private readonly profile: CpuProfile) {
    for (const node of profile.nodes) {
      this.byId.set(node.id, node);
      for (const child of node.children ?? []) this.parent.set(child, node.id);
    }
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

  /**
   * Time of the samples whose stack holds a frame `matches` accepts: what those functions cost,
   * everything they called included, each sample counted once however deep the match; grouped by
   * where the sample fell (`keyOf` of its own frame). A frame `stopAt` accepts, nearer the sample
   * than the match, means the work is not theirs: the next middleware and the handler run inside
   * a middleware's call to `next()`.
   */
  inclusiveTime(matches: (frame: CallFrame) => boolean, stopAt: (frame: CallFrame) => boolean, keyOf: (frame: CallFrame) => string): Share[] {
    const totals = new Map<string, number>();
    this.forEachSample((node, weight) => {
      for (let id: number | undefined = node.id; id !== undefined; id = this.parent.get(id)) {
        const frame = this.byId.get(id)!.callFrame;
        if (matches(frame)) {
          const key = keyOf(node.callFrame);
          totals.set(key, (totals.get(key) ?? 0) + weight);
          return;
        }
        if (stopAt(frame)) return;
      }
    });
    return sorted(totals);
  }

  private forEachSample(visit: (node: ProfileNode, weight: number) => void): void {
    this.profile.samples.forEach((id, i) => visit(this.byId.get(id)!, this.weights[i]!));
  }
}

/** "express", "rate-limiter-flexible", "service-auth dist/src/…", "node:internal", "(garbage collector)". */
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
