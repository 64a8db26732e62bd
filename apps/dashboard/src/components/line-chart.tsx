'use client';

export interface ChartSeries {
  name: string;
  color: string;
  values: (number | null)[];
  /** Drawn dashed, for reference lines such as a limit. */
  dashed?: boolean;
}

export interface ChartBand {
  name: string;
  color: string;
  low: (number | null)[];
  high: (number | null)[];
}

interface LineChartProps {
  label: string;
  /** One label per x position, for the axis and the tooltip. */
  xLabels: string[];
  series: ChartSeries[];
  band?: ChartBand;
  yMin?: number;
  yMax?: number;
  height?: number;
  formatY?: (value: number) => string;
}

const WIDTH = 1000;
const PAD = { left: 44, right: 12, top: 10, bottom: 22 };

/**
 * A small SVG line chart (no chart library: a few hundred points need none). Gaps (null) break the line.
 * It stretches to its container's width.
 */
export function LineChart({
  label,
  xLabels,
  series,
  band,
  yMin,
  yMax,
  height = 200,
  formatY = String,
}: LineChartProps) {
  const all = [...series.flatMap((s) => s.values), ...(band ? [...band.low, ...band.high] : [])].filter(
    (value): value is number => value !== null && Number.isFinite(value),
  );
  const lo = yMin ?? Math.min(0, ...all);
  const hi = Math.max(yMax ?? -Infinity, ...all, lo + 1);
  const n = Math.max(1, xLabels.length - 1);
  const x = (index: number) => PAD.left + (index / n) * (WIDTH - PAD.left - PAD.right);
  const y = (value: number) => PAD.top + (1 - (value - lo) / (hi - lo)) * (height - PAD.top - PAD.bottom);
  const path = (values: (number | null)[]) =>
    values
      .map((value, index) =>
        value === null
          ? ''
          : `${index === 0 || values[index - 1] === null ? 'M' : 'L'}${x(index).toFixed(1)},${y(value).toFixed(1)}`,
      )
      .join('');
  const ticks = [lo, (lo + hi) / 2, hi];
  const xTicks = xLabels.length > 1 ? [0, Math.floor(n / 2), n] : [0];
  let bandPath = '';
  if (band) {
    const upper = band.high
      .map((value, index) => (value === null ? null : `${x(index)},${y(value)}`))
      .filter(Boolean);
    const lower = band.low
      .map((value, index) => (value === null ? null : `${x(index)},${y(value)}`))
      .filter(Boolean)
      .reverse();
    if (upper.length > 0) bandPath = `M${upper.join('L')}L${lower.join('L')}Z`;
  }
  return (
    <figure className="chart" aria-label={label}>
      <svg viewBox={`0 0 ${WIDTH} ${height}`} role="img" aria-label={label}>
        {ticks.map((tick) => (
          <g key={tick}>
            <line x1={PAD.left} x2={WIDTH - PAD.right} y1={y(tick)} y2={y(tick)} className="grid" />
            <text x={PAD.left - 6} y={y(tick) + 4} textAnchor="end" className="axis">
              {formatY(tick)}
            </text>
          </g>
        ))}
        {xTicks.map((index) => (
          <text
            key={index}
            x={x(index)}
            y={height - 6}
            textAnchor={index === 0 ? 'start' : index === n ? 'end' : 'middle'}
            className="axis"
          >
            {xLabels[index]}
          </text>
        ))}
        {band && bandPath ? <path d={bandPath} fill={band.color} opacity={0.18} /> : null}
        {series.map((s) => (
          <path
            key={s.name}
            d={path(s.values)}
            fill="none"
            stroke={s.color}
            strokeWidth={2}
            strokeDasharray={s.dashed ? '6 4' : undefined}
            vectorEffect="non-scaling-stroke"
          />
        ))}
      </svg>
      <figcaption className="legend">
        {series.map((s) => (
          <span key={s.name}>
            <i style={{ background: s.color }} /> {s.name}
          </span>
        ))}
        {band ? (
          <span>
            <i style={{ background: band.color, opacity: 0.4 }} /> {band.name}
          </span>
        ) : null}
      </figcaption>
    </figure>
  );
}
