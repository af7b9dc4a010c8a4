import { describe, expect, it } from 'vitest';
import { CHART_DAYS, chartDays, chartModel } from '../../../server/admin/chart.js';
import type { OrderState } from '../../../server/orders/types.js';

const NOW = new Date('2025-03-14T09:30:00.000Z');
const on = (day: string, state: OrderState) => ({ state, createdAt: new Date(`${day}T08:00:00.000Z`) });

describe('chart', () => {
  it('buckets 14 UTC days ending today; payments exclude created, rate is accepted over decided', () => {
    const days = chartDays([
      on('2025-03-14', 'paid'), on('2025-03-14', 'declined'), on('2025-03-14', 'pending'), on('2025-03-14', 'created'),
      on('2025-03-01', 'authorized'), on('2025-03-01', 'refunded'), on('2025-03-01', 'chargeback'),
      on('2025-02-28', 'paid'), // one day too old
      on('2025-03-10', 'in_review'),
    ], NOW);
    expect(days).toHaveLength(CHART_DAYS);
    expect(days[0]?.day).toBe('2025-03-01');
    expect(days[13]).toEqual({ day: '2025-03-14', payments: 3, accepted: 1, decided: 2, rate: 0.5 });
    expect(days[0]).toEqual({ day: '2025-03-01', payments: 3, accepted: 3, decided: 3, rate: 1 });
    expect(days.find((d) => d.day === '2025-03-10')).toEqual({ day: '2025-03-10', payments: 1, accepted: 0, decided: 0, rate: null });
  });

  it('draws bars scaled to the busiest day and a rate line only through days with a rate', () => {
    const days = chartDays([on('2025-03-14', 'paid'), on('2025-03-14', 'failed'), on('2025-03-13', 'paid')], NOW);
    const model = chartModel(days);
    expect(model.maxPayments).toBe(2);
    expect(model.totalPayments).toBe(3);
    const last = model.bars[13]!;
    const previous = model.bars[12]!;
    expect(last.y).toBe(model.plot.top);
    expect(last.height).toBeCloseTo(model.plot.bottom - model.plot.top, 0);
    expect(previous.height).toBeCloseTo(last.height / 2, 0);
    expect(model.bars[0]?.height).toBe(0);
    expect(model.dots.map((d) => [d.day.day, d.percent])).toEqual([['2025-03-13', 100], ['2025-03-14', 50]]);
    expect(model.ratePoints.split(' ')).toHaveLength(2);
    expect(model.dots[0]?.cy).toBe(model.plot.top);
  });

  it('has a flat, empty chart when nothing happened', () => {
    const model = chartModel(chartDays([], NOW));
    expect(model.bars.every((b) => b.height === 0)).toBe(true);
    expect(model.ratePoints).toBe('');
  });
});
