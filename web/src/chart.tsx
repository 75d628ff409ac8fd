// The dashboard's one chart: counts over time as lines, drawn by uPlot (a small canvas chart
// library, ~20 KB compressed), with the same figures as a table for screen readers (the canvas
// is hidden from them) and the legend uPlot draws. Pages that chart figures load this file
// lazily with themselves, so uPlot never weighs on the shell.
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
  series: ChartSeries[];
  height?: number;
}

export function TimeChart({ title, times, timeLabels, series, height = 240 }: TimeChartProps) {
  const box = useRef<HTMLDivElement>(null);
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const data: uPlot.AlignedData = [times.map((t) => t.getTime() / 1000), ...series.map((s) => s.values)];
    const plot = new uPlot(
      {
        width: Math.max(280, el.clientWidth),
        height,
        series: [{}, ...series.map((s) => ({ label: s.label, stroke: s.color, width: 2, points: { show: times.length <= 31 } }))],
        axes: [{}, { size: 48, values: (_u, ticks) => ticks.map((v) => (Number.isInteger(v) ? String(v) : '')) }],
        scales: { y: { range: (_u, _min, max) => [0, Math.max(1, Math.ceil(max * 1.1))] } },
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
  }, [times, series, height]);

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
