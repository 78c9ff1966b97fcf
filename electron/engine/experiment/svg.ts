/**
 * A small SVG line chart: axes with ticks, one polyline per series, a legend. Enough for the
 * experiment's reward and fidelity curves without a chart library.
 */

export interface ChartSeries {
  name: string;
  points: Array<[number, number]>;
}

export interface ChartSpec {
  title: string;
  xLabel: string;
  yLabel: string;
  series: ChartSeries[];
  width?: number;
  height?: number;
}

export interface Range {
  min: number;
  max: number;
}

const PALETTE = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#e377c2', '#17becf'];
const MARGIN = { left: 56, right: 170, top: 36, bottom: 44 };

/** The data range of finite values, widened by half a unit around a single value; null for no data. */
export function axisRange(values: readonly number[]): Range | null {
  const xs = values.filter((v) => Number.isFinite(v));
  if (!xs.length) return null;
  const min = Math.min(...xs);
  const max = Math.max(...xs);
  return min === max ? { min: min - 0.5, max: max + 0.5 } : { min, max };
}

/** `count` evenly spaced tick values from min to max. */
export function ticks(r: Range, count = 5): number[] {
  return Array.from({ length: count }, (_, i) => r.min + ((r.max - r.min) * i) / (count - 1));
}

const escapeXml = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const num = (v: number) => String(Math.round(v * 100) / 100);
const tickText = (v: number) => (Math.abs(v) >= 100 ? v.toFixed(0) : Number(v.toPrecision(3)).toString());

export function lineChart(spec: ChartSpec): string {
  const width = spec.width ?? 720;
  const height = spec.height ?? 360;
  const plotW = width - MARGIN.left - MARGIN.right;
  const plotH = height - MARGIN.top - MARGIN.bottom;
  const finite = spec.series.map((s) => ({ ...s, points: s.points.filter(([x, y]) => Number.isFinite(x) && Number.isFinite(y)) }));
  const xr = axisRange(finite.flatMap((s) => s.points.map(([x]) => x)));
  const yr = axisRange(finite.flatMap((s) => s.points.map(([, y]) => y)));
  const out: string[] = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="sans-serif" font-size="12">`,
    `<rect width="${width}" height="${height}" fill="white"/>`,
    `<text x="${width / 2}" y="20" text-anchor="middle" font-size="14">${escapeXml(spec.title)}</text>`,
  ];
  if (!xr || !yr) {
    out.push(`<text x="${width / 2}" y="${height / 2}" text-anchor="middle" fill="#666">no data</text>`, '</svg>');
    return out.join('\n');
  }
  const px = (x: number) => MARGIN.left + ((x - xr.min) / (xr.max - xr.min)) * plotW;
  const py = (y: number) => MARGIN.top + plotH - ((y - yr.min) / (yr.max - yr.min)) * plotH;
  const bottom = MARGIN.top + plotH;
  out.push(
    `<g class="axes" stroke="#333"><line x1="${MARGIN.left}" y1="${bottom}" x2="${MARGIN.left + plotW}" y2="${bottom}"/><line x1="${MARGIN.left}" y1="${MARGIN.top}" x2="${MARGIN.left}" y2="${bottom}"/></g>`,
  );
  for (const t of ticks(xr)) out.push(`<text class="xtick" x="${num(px(t))}" y="${bottom + 16}" text-anchor="middle">${tickText(t)}</text>`);
  for (const t of ticks(yr)) out.push(`<text class="ytick" x="${MARGIN.left - 6}" y="${num(py(t) + 4)}" text-anchor="end">${tickText(t)}</text>`);
  out.push(
    `<text x="${MARGIN.left + plotW / 2}" y="${height - 8}" text-anchor="middle">${escapeXml(spec.xLabel)}</text>`,
    `<text x="14" y="${MARGIN.top + plotH / 2}" text-anchor="middle" transform="rotate(-90 14 ${MARGIN.top + plotH / 2})">${escapeXml(spec.yLabel)}</text>`,
  );
  finite.forEach((s, i) => {
    const color = PALETTE[i % PALETTE.length];
    const pts = s.points.map(([x, y]) => `${num(px(x))},${num(py(y))}`).join(' ');
    // A one-point series still shows: a polyline of one point draws nothing, so add a dot.
    out.push(`<polyline fill="none" stroke="${color}" stroke-width="2" points="${pts}"><title>${escapeXml(s.name)}</title></polyline>`);
    if (s.points.length === 1) out.push(`<circle cx="${num(px(s.points[0][0]))}" cy="${num(py(s.points[0][1]))}" r="3" fill="${color}"/>`);
    const ly = MARGIN.top + 8 + i * 18;
    const lx = MARGIN.left + plotW + 14;
    out.push(
      `<g class="legend"><line x1="${lx}" y1="${ly}" x2="${lx + 18}" y2="${ly}" stroke="${color}" stroke-width="2"/><text x="${lx + 24}" y="${ly + 4}">${escapeXml(s.name)}</text></g>`,
    );
  });
  out.push('</svg>');
  return out.join('\n');
}
