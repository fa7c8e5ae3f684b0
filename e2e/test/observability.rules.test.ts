import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

const ROOT = path.join(__dirname, '..', '..');
const DIR = path.join(ROOT, 'deploy', 'observability');
const read = (f: string) => readFileSync(path.join(DIR, f), 'utf8');

interface Rule {
  alert?: string;
  record?: string;
  expr: string;
}
const rules: Rule[] = YAML.parse(read('rules.yml')).groups.flatMap((g: { rules: Rule[] }) => g.rules);

/** The mediagate_* series an expression reads (histogram suffixes taken off). */
function metricsRead(expr: string): string[] {
  const names = expr.match(/\bmediagate_[a-z0-9_]+/g) ?? [];
  return [...new Set(names.map((n) => n.replace(/_(bucket|count|sum)$/, '')))];
}

const promtool = (...args: string[]) =>
  spawnSync('promtool', args, { cwd: DIR, encoding: 'utf8', timeout: 240_000 });

describe('Prometheus rules and the dashboard', () => {
  it('rules.yml is valid, and every alert passes its promtool tests', () => {
    const check = promtool('check', 'rules', 'rules.yml');
    expect(check.stderr + check.stdout).toContain('SUCCESS');
    expect(check.status).toBe(0);
    const test = promtool('test', 'rules', 'tests/rules.test.yml');
    expect(test.stdout + test.stderr).toContain('SUCCESS');
    expect(test.status).toBe(0);
  }, 300_000);

  it('tests every alert both firing and not firing', () => {
    const tests = YAML.parse(read('tests/rules.test.yml')).tests as Array<{
      alert_rule_test: Array<{ alertname: string; exp_alerts?: unknown[] }>;
    }>;
    const cases = tests.flatMap((t) => t.alert_rule_test);
    const alerts = rules.filter((r) => r.alert).map((r) => r.alert!);
    expect(alerts.length).toBeGreaterThan(20);
    for (const alert of alerts) {
      const mine = cases.filter((c) => c.alertname === alert);
      expect({ alert, fires: mine.some((c) => (c.exp_alerts ?? []).length > 0) }).toEqual({
        alert,
        fires: true,
      });
      expect({ alert, quiet: mine.some((c) => (c.exp_alerts ?? []).length === 0) }).toEqual({
        alert,
        quiet: true,
      });
    }
  });

  it('the PrometheusRule and the dashboard are what their sources make (pnpm observability --check)', () => {
    const r = spawnSync(process.execPath, [path.join(ROOT, 'e2e/scripts/observability.mjs'), '--check'], {
      encoding: 'utf8',
    });
    expect(r.stderr).toBe('');
    expect(r.status).toBe(0);
    const crd = YAML.parse(read('prometheus-rule.yaml'));
    expect(crd.kind).toBe('PrometheusRule');
    expect(crd.spec.groups).toEqual(YAML.parse(read('rules.yml')).groups);
  });

  it('every metric the rules and the dashboard read is in the metrics table of docs/operations.md', () => {
    const readme = readFileSync(path.join(ROOT, 'docs', 'operations.md'), 'utf8');
    const dashboard = JSON.parse(read('grafana/mediagate.json'));
    const exprs = [
      ...rules.map((r) => r.expr),
      ...dashboard.panels.flatMap((p: { targets?: Array<{ expr: string }> }) =>
        (p.targets ?? []).map((t) => t.expr),
      ),
    ];
    const read_ = [...new Set(exprs.flatMap(metricsRead))].sort();
    expect(read_.length).toBeGreaterThan(20);
    expect(read_.filter((m) => !readme.includes(`\`${m}\``))).toEqual([]);
  });
});
