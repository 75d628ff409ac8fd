// Who sends in a domain's name, as a chart: one horizontal bar per source address, the largest
// on top (the rest as one bar), its messages split into Postline's own, other known senders
// (mail from elsewhere that passed DMARC) and unknown senders (mail from elsewhere that failed).
// Drawn by uPlot, the dashboard's one chart library (chart.tsx draws its lines with it); hidden
// from screen readers, who read the same figures in the sources table under it. Loaded with the
// domain's reports only (domain-reports.tsx), never with the shell.
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

export interface SourceBar {
  label: string;
  postline: number;
  known: number;
  unknown: number;
}

export const SOURCE_COLORS = { postline: '#2b50c8', known: '#1a7f37', unknown: '#c2410c' } as const;

const BAR_HEIGHT = 30;
const LABEL_CHARS = 22;

const short = (label: string) => (label.length > LABEL_CHARS ? `${label.slice(0, LABEL_CHARS - 1)}…` : label);

export function SourcesChart({ bars }: { bars: SourceBar[] }) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const height = 50 + bars.length * BAR_HEIGHT;
    const index = bars.map((_, i) => i);
    // Stacked by drawing the sums, widest first: unknown reaches the whole bar, known and
    // Postline are drawn over it from zero (a source is either Postline's or not).
    const whole = bars.map((b) => b.postline + b.known + b.unknown);
    const knownPart = bars.map((b) => b.postline + b.known);
    const postlinePart = bars.map((b) => b.postline);
    const orNull = (values: number[]) => values.map((v) => (v > 0 ? v : null));
    const bar = uPlot.paths.bars!({ size: [0.7, 22] });
    const plot = new uPlot(
      {
        width: Math.max(280, el.clientWidth),
        height,
        legend: { show: false },
        cursor: { show: false },
        scales: {
          x: { time: false, ori: 1, dir: -1, range: [-0.5, bars.length - 0.5] },
          y: { ori: 0, dir: 1, range: (_u, _min, max) => [0, Math.max(1, Math.ceil(max * 1.05))] },
        },
        axes: [
          {
            scale: 'x',
            side: 3,
            // Room for the longest label (about 7 px a character at uPlot's 12 px font).
            size: Math.min(160, 16 + 7 * Math.max(...bars.map((b) => short(b.label).length))),
            grid: { show: false },
            ticks: { show: false },
            splits: () => index,
            values: (_u, splits) => splits.map((i) => short(bars[i]?.label ?? '')),
          },
          { scale: 'y', side: 2, values: (_u, ticks) => ticks.map((v) => (Number.isInteger(v) ? v.toLocaleString() : '')) },
        ],
        series: [
          {},
          { label: 'Unknown senders', fill: SOURCE_COLORS.unknown, stroke: SOURCE_COLORS.unknown, paths: bar, points: { show: false } },
          { label: 'Other known senders', fill: SOURCE_COLORS.known, stroke: SOURCE_COLORS.known, paths: bar, points: { show: false } },
          { label: 'Postline', fill: SOURCE_COLORS.postline, stroke: SOURCE_COLORS.postline, paths: bar, points: { show: false } },
        ],
      },
      [index, orNull(whole), orNull(knownPart), orNull(postlinePart)],
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(280, el.clientWidth), height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [bars]);
  return <div ref={box} className="sources-chart" aria-hidden="true" />;
}
