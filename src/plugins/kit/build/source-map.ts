/**
 * Just enough of source maps (v3) to point an error in the bundle back at the plugin's own file: VLQ `mappings`
 * decoded line by line, looked up by generated line and column.
 */
export interface SourceMapJson {
  sources: string[];
  mappings: string;
}

export interface OriginalPosition {
  source: string;
  /** 1-based, as editors count lines. */
  line: number;
  /** 1-based. */
  column: number;
}

const BASE64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

function decodeVlq(segment: string): number[] {
  const values: number[] = [];
  let value = 0;
  let shift = 0;
  for (const char of segment) {
    const digit = BASE64.indexOf(char);
    if (digit < 0) return values;
    value += (digit & 31) << shift;
    if (digit & 32) shift += 5;
    else {
      values.push(value & 1 ? -(value >>> 1) : value >>> 1);
      value = 0;
      shift = 0;
    }
  }
  return values;
}

type Segment = [column: number, source: number, line: number, sourceColumn: number];

export class SourceMap {
  private readonly lines: Segment[][] = [];

  constructor(private readonly map: SourceMapJson) {
    let source = 0;
    let line = 0;
    let sourceColumn = 0;
    for (const text of map.mappings.split(";")) {
      const segments: Segment[] = [];
      let column = 0;
      for (const part of text.split(",")) {
        if (part.length === 0) continue;
        const v = decodeVlq(part);
        column += v[0] ?? 0;
        if (v.length < 4) continue;
        source += v[1]!;
        line += v[2]!;
        sourceColumn += v[3]!;
        segments.push([column, source, line, sourceColumn]);
      }
      this.lines.push(segments);
    }
  }

  /** The original position of a 1-based generated line and column, or null when nothing maps there. */
  originalAt(line: number, column: number): OriginalPosition | null {
    const segments = this.lines[line - 1] ?? [];
    let best: Segment | undefined;
    for (const segment of segments) if (segment[0] <= column - 1) best = segment;
    best ??= segments[0];
    if (!best) return null;
    const source = this.map.sources[best[1]];
    return source === undefined ? null : { source, line: best[2] + 1, column: best[3] + 1 };
  }
}
