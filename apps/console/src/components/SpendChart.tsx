import { BarChart } from 'echarts/charts';
import { GridComponent, LegendComponent, TooltipComponent } from 'echarts/components';
import * as echarts from 'echarts/core';
import { CanvasRenderer } from 'echarts/renderers';
import { useEffect, useRef } from 'react';
import type { SpendSeries } from '../lib/spend';

echarts.use([BarChart, GridComponent, LegendComponent, TooltipComponent, CanvasRenderer]);

/** Spend per day, stacked by model (ECharts, loaded with the dashboard only). */
export default function SpendChart({ data, label }: { data: SpendSeries; label: string }) {
  const ref = useRef<HTMLDivElement>(null);
  useEffect(() => {
    if (!ref.current) return;
    const chart = echarts.init(ref.current, undefined, { renderer: 'canvas' });
    chart.setOption({
      tooltip: {
        trigger: 'axis',
        axisPointer: { type: 'shadow' },
        valueFormatter: (v: unknown) => `$${Number(v).toFixed(4)}`,
      },
      legend: { type: 'scroll', bottom: 0 },
      grid: { left: 8, right: 8, top: 16, bottom: 40, containLabel: true },
      xAxis: { type: 'category', data: data.days.map((d) => d.slice(5)) },
      yAxis: { type: 'value', axisLabel: { formatter: (v: number) => `$${v}` } },
      series: data.series.map((s) => ({ name: s.model, type: 'bar', stack: 'spend', data: s.values })),
    });
    const observer = new ResizeObserver(() => chart.resize());
    observer.observe(ref.current);
    return () => {
      observer.disconnect();
      chart.dispose();
    };
  }, [data]);
  return <div ref={ref} role="img" aria-label={label} style={{ width: '100%', height: 300 }} />;
}
