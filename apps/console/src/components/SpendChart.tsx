import { theme } from 'antd';
import { useT } from '../i18n/i18n';
import { formatUsd } from '../lib/format';
import type { SpendSeries } from '../lib/spend';

// a colour per model, in the order of the series (biggest spender first); repeats after ten
const COLORS = [
  '#1677ff',
  '#52c41a',
  '#faad14',
  '#eb2f96',
  '#13c2c2',
  '#722ed1',
  '#fa541c',
  '#2f54eb',
  '#a0d911',
  '#8c8c8c',
];
const colorOf = (i: number) => COLORS[i % COLORS.length];
const HEIGHT = 240;
const dayLabel = (day: string) => day.slice(5);

/** A round step for the value axis (1, 2, 2.5 or 5 times a power of ten) giving at most five steps to `max`. */
function axisStep(max: number): number {
  const raw = max / 5;
  const power = 10 ** Math.floor(Math.log10(raw));
  return ([1, 2, 2.5, 5, 10].find((f) => f * power >= raw) ?? 10) * power;
}

/**
 * Spend per day, stacked by model: bars in an SVG stretched to the card's width, axis labels and
 * legend in HTML (they keep their size at any width). Drawn by the console itself, not a charting
 * library, so the dashboard's first screen waits for no extra code. Each bar's figures are in its
 * tooltip (an SVG title); the chart's summary is its accessible name, the table below it the figures.
 */
export default function SpendChart({ data, label }: { data: SpendSeries; label: string }) {
  const t = useT();
  const { token } = theme.useToken();
  const totals = data.days.map((_, i) => data.series.reduce((sum, s) => sum + (s.values[i] ?? 0), 0));
  const max = Math.max(...totals, 0);
  const step = max > 0 ? axisStep(max) : 1;
  const steps = Math.max(1, Math.ceil(max / step - 1e-9));
  const top = step * steps;
  const peak = totals.indexOf(max);
  const name = t('dashboard.chartName', {
    chart: label,
    total: formatUsd(data.total),
    day: dayLabel(data.days[peak] ?? ''),
    amount: formatUsd(max),
  });
  const ticks = Array.from({ length: steps + 1 }, (_, i) => step * i);
  const every = Math.max(1, Math.ceil(data.days.length / 6));
  const n = data.days.length;
  return (
    <figure style={{ margin: 0 }} data-testid="spend-chart">
      <div style={{ display: 'flex', gap: 8 }}>
        <div
          aria-hidden
          style={{
            position: 'relative',
            height: HEIGHT,
            minWidth: 48,
            fontSize: 11,
            color: token.colorTextSecondary,
          }}
        >
          {ticks.map((v) => (
            <span
              key={v}
              style={{
                position: 'absolute',
                right: 0,
                bottom: `${(v / top) * 100}%`,
                transform: 'translateY(50%)',
              }}
            >
              {formatUsd(v)}
            </span>
          ))}
        </div>
        <div style={{ flex: 1, minWidth: 0 }}>
          <svg
            role="img"
            aria-label={name}
            width="100%"
            height={HEIGHT}
            viewBox={`0 0 ${n} 100`}
            preserveAspectRatio="none"
            style={{ display: 'block' }}
          >
            {ticks.map((v) => (
              <line
                key={v}
                x1={0}
                x2={n}
                y1={100 - (v / top) * 100}
                y2={100 - (v / top) * 100}
                stroke={token.colorBorderSecondary}
                vectorEffect="non-scaling-stroke"
              />
            ))}
            {data.days.map((day, i) => {
              let base = 100;
              return (
                <g key={day}>
                  {data.series.map((s, k) => {
                    const v = s.values[i] ?? 0;
                    if (v <= 0) return null;
                    const h = (v / top) * 100;
                    base -= h;
                    return (
                      <rect key={s.model} x={i + 0.15} width={0.7} y={base} height={h} fill={colorOf(k)}>
                        <title>{`${dayLabel(day)} · ${s.model}: ${formatUsd(v)}`}</title>
                      </rect>
                    );
                  })}
                </g>
              );
            })}
          </svg>
          <div
            aria-hidden
            style={{ position: 'relative', height: 16, fontSize: 11, color: token.colorTextSecondary }}
          >
            {data.days.map((day, i) =>
              i % every === 0 ? (
                <span
                  key={day}
                  style={{
                    position: 'absolute',
                    left: `${((i + 0.5) / n) * 100}%`,
                    transform: 'translateX(-50%)',
                  }}
                >
                  {dayLabel(day)}
                </span>
              ) : null,
            )}
          </div>
        </div>
      </div>
      <figcaption
        aria-hidden
        style={{ display: 'flex', flexWrap: 'wrap', gap: '4px 16px', marginTop: 8, fontSize: 12 }}
      >
        {data.series.map((s, k) => (
          <span key={s.model} style={{ display: 'inline-flex', alignItems: 'center', gap: 6 }}>
            <span
              style={{
                width: 10,
                height: 10,
                borderRadius: 2,
                background: colorOf(k),
                display: 'inline-block',
              }}
            />
            {s.model}
          </span>
        ))}
      </figcaption>
    </figure>
  );
}
