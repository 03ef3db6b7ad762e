/**
 * Where the matches of a query's walk lie: for each, its segment (index), line number and byte range in the
 * segment. A second walk of a selective query (`--event-type` matching 1% of a million events) then reads only
 * those lines, not every line again; past MAX_PLANNED matches nothing more is kept (the plan is `full`) and a second
 * walk reads every line, so what it holds stays bounded (2 MiB) whatever the log holds.
 */
export class MatchPlan {
  private data = new Float64Array(4 * 256);
  /** Matches planned. */
  length = 0;
  /** More matches than it keeps: none is kept. */
  full = false;

  constructor(private readonly max = MAX_PLANNED) {}

  add(segment: number, line: number, start: number, end: number): void {
    if (this.full) return;
    if (this.length === this.max) {
      this.full = true;
      this.data = new Float64Array(0);
      this.length = 0;
      return;
    }
    if (4 * this.length === this.data.length) {
      const bigger = new Float64Array(this.data.length * 2);
      bigger.set(this.data);
      this.data = bigger;
    }
    this.data.set([segment, line, start, end], 4 * this.length++);
  }

  segment(i: number): number {
    return this.data[4 * i]!;
  }
  line(i: number): number {
    return this.data[4 * i + 1]!;
  }
  start(i: number): number {
    return this.data[4 * i + 2]!;
  }
  end(i: number): number {
    return this.data[4 * i + 3]!;
  }
}

/** The most matches a plan keeps (4 numbers each). */
export const MAX_PLANNED = 1 << 16;
