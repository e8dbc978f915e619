/**
 * The bench's two pictures, drawn as plain SVG from its figures: workerd CPU against note size for
 * every row of the note-size question (a bundle of straight lines is the linear-time claim), and our
 * costs beside the floors' (warm and first requests).
 */
import type { SizeRow } from './note-size';
import { wrap } from './report';

const FONT = 'font-family="system-ui, sans-serif"';
const OURS = '#1f4e79';
const FLOOR = '#8fb8de';
const BOUND = '#b03a2e';

/** Text made safe for SVG character data and attribute values. */
export function escapeXml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** A line of text; `attributes` may set its font-size (12 otherwise). */
const label = (x: number, y: number, content: string, attributes = ''): string =>
  `<text x="${x.toFixed(1)}" y="${y.toFixed(1)}" ${FONT}${attributes.includes('font-size=') ? '' : ' font-size="12"'} ${attributes}>${escapeXml(content)}</text>`;

/** A round upper end for an axis holding `max`, which quarters into round ticks: 1, 1.2, 1.6, 2, 4, 6 or 8 times a power of ten. */
export function niceMax(max: number): number {
  const power = 10 ** Math.floor(Math.log10(Math.max(max, 1e-9)));
  return [1, 1.2, 1.6, 2, 4, 6, 8, 10].map((step) => step * power).find((candidate) => candidate >= max * (1 - 1e-12)) as number;
}

const svgDocument = (width: number, height: number, title: string, body: string[]): string =>
  [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" role="img" aria-label="${escapeXml(title)}">`,
    `<rect width="${width}" height="${height}" fill="#ffffff"/>`,
    ...body,
    '</svg>',
    '',
  ].join('\n');

export interface LinearChart {
  sizes: readonly number[];
  rows: SizeRow[];
  /** The bound on our CPU at the largest size. */
  boundMs: number;
  /** The run, for the subtitle: "2026-12-07, --quick". */
  run: string;
}

/** workerd CPU per read against note size: one line per row, the read floor, the bound at the cap. */
export function linearChart({ sizes, rows, boundMs, run }: LinearChart): string {
  const [width, height] = [860, 480];
  const plot = { left: 64, right: width - 250, top: 64, bottom: height - 56 };
  const maxChars = sizes[sizes.length - 1] as number;
  const yMax = niceMax(Math.max(boundMs * 1.1, ...rows.flatMap((row) => row.ours)));
  const x = (chars: number): number => plot.left + ((plot.right - plot.left) * chars) / maxChars;
  const y = (ms: number): number => plot.bottom - ((plot.bottom - plot.top) * ms) / yMax;
  const line = (values: number[], attributes: string): string =>
    `<polyline fill="none" ${attributes} points="${values.map((ms, at) => `${x(sizes[at] as number).toFixed(1)},${y(ms).toFixed(1)}`).join(' ')}"/>`;
  const last = sizes.length - 1;
  const worst = rows.reduce((best, row) => ((row.ours[last] as number) > (best.ours[last] as number) ? row : best), rows[0] as SizeRow);
  const steepest = rows.reduce((best, row) => (row.growth > best.growth ? row : best), rows[0] as SizeRow);
  const floor = rows.find((row) => row.floor !== null)?.floor ?? null;
  const real = rows.find((row) => row.name.startsWith('real notes'));
  const body: string[] = [
    label(plot.left, 24, 'workerd CPU per read against note size, every pathological Markdown shape', 'font-size="16" font-weight="600"'),
    label(plot.left, 44, `${rows.length} rows, section source through the Worker; steepest growth per doubling ${steepest.growth.toFixed(2)}x (linear 2.00); ${run}`, 'fill="#555"'),
  ];
  for (let tick = 0; tick <= 4; tick++) {
    const ms = (yMax * tick) / 4;
    body.push(`<line x1="${plot.left}" x2="${plot.right}" y1="${y(ms).toFixed(1)}" y2="${y(ms).toFixed(1)}" stroke="#e5e5e5"/>`);
    body.push(label(plot.left - 8, y(ms) + 4, `${Number(ms.toPrecision(3))}`, 'text-anchor="end" fill="#555"'));
    const chars = (maxChars * tick) / 4;
    body.push(label(x(chars), plot.bottom + 18, chars === 0 ? '0' : `${chars / 1000}K`, 'text-anchor="middle" fill="#555"'));
  }
  body.push(label(plot.left - 48, plot.top - 10, 'ms', 'fill="#555"'));
  body.push(label((plot.left + plot.right) / 2, plot.bottom + 40, 'note size, chars', 'text-anchor="middle" fill="#555"'));
  body.push(`<line x1="${plot.left}" x2="${plot.right}" y1="${y(boundMs).toFixed(1)}" y2="${y(boundMs).toFixed(1)}" stroke="${BOUND}" stroke-dasharray="6 4"/>`);
  for (const row of rows) body.push(line(row.ours, 'stroke="#7f8c8d" stroke-opacity="0.35" stroke-width="1"'));
  // Labels at the right edge, each beside its line's end, moved apart where they would overlap.
  const notes: { at: number; lines: string[]; color: string }[] = [{ at: y(boundMs), lines: [`bound at 1M: ${boundMs} ms`], color: BOUND }];
  if (real) {
    body.push(line(real.ours, 'stroke="#2e7d32" stroke-width="2"'));
    notes.push({ at: y(real.ours[last] as number), lines: ['real notes, joined'], color: '#2e7d32' });
  }
  if (floor) {
    body.push(line(floor, `stroke="${FLOOR}" stroke-width="2" stroke-dasharray="4 3"`));
    notes.push({ at: y(floor[last] as number), lines: ['read floor (same notes)'], color: '#3b6a93' });
  }
  body.push(line(worst.ours, `stroke="${OURS}" stroke-width="2"`));
  notes.push({ at: y(worst.ours[last] as number), lines: ['slowest at 1M:', ...wrap(worst.name, 34).slice(0, 3)], color: OURS });
  let below = plot.top - 8;
  for (const note of notes.sort((a, b) => a.at - b.at)) {
    const top = Math.max(note.at - 4, below + 4);
    note.lines.forEach((text, at) => body.push(label(plot.right + 8, top + 4 + 15 * at, text, `fill="${note.color}"`)));
    below = top + 15 * note.lines.length;
  }
  body.push(`<rect x="${plot.left}" y="${plot.top}" width="${plot.right - plot.left}" height="${plot.bottom - plot.top}" fill="none" stroke="#999"/>`);
  return svgDocument(width, height, 'workerd CPU per read against note size', body);
}

/** One comparison: our figure beside a floor's. */
export interface FloorPair {
  what: string;
  ours: number;
  floor: number;
  floorName: string;
}

export interface FloorsChart {
  warm: FloorPair[];
  first: FloorPair[];
  run: string;
}

/** Two panels of bars, ours above each floor's: warm requests, and the first request of a fresh isolate. */
export function floorsChart({ warm, first, run }: FloorsChart): string {
  const width = 860;
  const barHeight = 16;
  const panel = (title: string, pairs: FloorPair[], top: number): { svg: string[]; bottom: number } => {
    const left = 250;
    const right = width - 90;
    const max = niceMax(Math.max(...pairs.flatMap((pair) => [pair.ours, pair.floor]), 0.001));
    const w = (ms: number): number => ((right - left) * Math.max(ms, 0)) / max;
    const svg = [label(24, top, title, 'font-size="14" font-weight="600"')];
    let at = top + 16;
    for (const pair of pairs) {
      svg.push(label(24, at + barHeight - 3, pair.what));
      svg.push(`<rect x="${left}" y="${at}" width="${w(pair.ours).toFixed(1)}" height="${barHeight}" fill="${OURS}"/>`);
      svg.push(label(left + w(pair.ours) + 6, at + barHeight - 3, `ours ${pair.ours.toFixed(2)} ms`, `fill="${OURS}"`));
      at += barHeight + 2;
      svg.push(`<rect x="${left}" y="${at}" width="${w(pair.floor).toFixed(1)}" height="${barHeight}" fill="${FLOOR}"/>`);
      svg.push(label(left + w(pair.floor) + 6, at + barHeight - 3, `${pair.floorName} ${pair.floor.toFixed(2)} ms`, 'fill="#3b6a93"'));
      at += barHeight + 14;
    }
    return { svg, bottom: at };
  };
  const header = [
    label(24, 24, 'Our Worker against the floors: workerd CPU per request', 'font-size="16" font-weight="600"'),
    label(24, 44, `floors: the read floor (our canister GET and parse, nothing else) and the MCP floor (the official SDK's own tools/call); ${run}`, 'fill="#555"'),
  ];
  const warmPanel = panel('Warm, over a no-op exchange (MCP: over the REST read of the same note, or over a JSON GET)', warm, 80);
  const firstPanel = panel('First request of a fresh isolate, over the warm ones after it', first, warmPanel.bottom + 24);
  return svgDocument(width, firstPanel.bottom + 8, 'Our Worker against the floors', [...header, ...warmPanel.svg, ...firstPanel.svg]);
}
