// The dashboard's one time chart: counts per period (an hour, a day) as bars, each period's
// series side by side, drawn by uPlot (a small canvas chart library, ~20 KB compressed). Bars,
// not lines: a count is what happened within its period, and a line between two periods'
// counts would draw sending that did not happen. The same figures are a table for screen
// readers (the canvas is hidden from them), beside the legend uPlot draws. Pages that chart
// figures load this file lazily with themselves, so uPlot never weighs on the shell.
import { useEffect, useRef } from 'react';
import uPlot from 'uplot';
import 'uplot/dist/uPlot.min.css';

interface ChartSeries {
  label: string;
  color: string;
  values: number[];
}

interface TimeChartProps {
  /** What the chart shows, for the table's caption and the figure's name. */
  title: string;
  /** Each point's time (the start of its period) and how a person reads it. */
  times: Date[];
  timeLabels: string[];
  /** The length of one period, seconds: each period's bars share its width. */
  periodSeconds: number;
  series: ChartSeries[];
  height?: number;
}

/** The share of a period its group of bars takes; the rest is the gap to the next period. */
const GROUP_WIDTH = 0.8;

/**
 * Series `index` of `count` as bars beside the others: each bar starts where its share of the
 * period's group begins (uPlot's bars path, its x0 and size given in the time scale's seconds).
 */
function groupedBars(index: number, count: number, periodSeconds: number): uPlot.Series.PathBuilder {
  const width = (periodSeconds * GROUP_WIDTH) / count;
  const offset = periodSeconds * (-GROUP_WIDTH / 2) + index * width;
  return uPlot.paths.bars!({
    disp: {
      // Indexed as the data are (uPlot reads positions from..to of the whole list).
      x0: { unit: 1, values: (u) => Array.from(u.data[0], (t) => t + offset) },
      size: { unit: 1, values: () => [width] },
    },
  });
}

export function TimeChart({ title, times, timeLabels, periodSeconds, series, height = 240 }: TimeChartProps) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const data: uPlot.AlignedData = [times.map((t) => t.getTime() / 1000), ...series.map((s) => s.values)];
    const plot = new uPlot(
      {
        width: Math.max(280, el.clientWidth),
        height,
        series: [
          {},
          ...series.map((s, i) => ({
            label: s.label,
            stroke: s.color,
            fill: s.color,
            width: 0,
            paths: groupedBars(i, series.length, periodSeconds),
            points: { show: false },
          })),
        ],
        axes: [{}, { size: 48, values: (_u, ticks) => ticks.map((v) => (Number.isInteger(v) ? String(v) : '')) }],
        scales: {
          // Half a period on each side: the first and last periods' bars are whole.
          x: { time: true, range: (_u, min, max) => [min - periodSeconds / 2, max + periodSeconds / 2] },
          y: { range: (_u, _min, max) => [0, Math.max(1, Math.ceil(max * 1.1))] },
        },
        legend: { live: false },
        cursor: { drag: { x: false, y: false } },
      },
      data,
      el,
    );
    const resize = new ResizeObserver(() => plot.setSize({ width: Math.max(280, el.clientWidth), height }));
    resize.observe(el);
    return () => {
      resize.disconnect();
      plot.destroy();
    };
  }, [times, series, height, periodSeconds]);

  return (
    <figure className="time-chart">
      <div ref={box} aria-hidden="true" />
      {/* A table cannot be squeezed to 1 px itself: its box would still widen the page. */}
      <div className="visually-hidden">
        <table>
          <caption>{title}</caption>
          <thead>
            <tr>
              <th scope="col">Period</th>
              {series.map((s) => (
                <th key={s.label} scope="col">
                  {s.label}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {timeLabels.map((label, i) => (
              <tr key={label}>
                <th scope="row">{label}</th>
                {series.map((s) => (
                  <td key={s.label}>{s.values[i]}</td>
                ))}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </figure>
  );
}
