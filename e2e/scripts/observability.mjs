#!/usr/bin/env node
// Writes what deploy/observability ships from its sources: the PrometheusRule (Prometheus Operator)
// from rules.yml, the one source of the rules, and the Grafana dashboard from the panels below.
// `--check` writes nothing and fails when a file on disk differs from what it would write (CI).
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import YAML from 'yaml';

const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), '..', '..', 'deploy', 'observability');

/** The PrometheusRule holding every group of rules.yml, unchanged. */
export function prometheusRule(rulesText) {
  const rules = YAML.parse(rulesText);
  const doc = {
    apiVersion: 'monitoring.coreos.com/v1',
    kind: 'PrometheusRule',
    metadata: { name: 'mediagate', labels: { 'app.kubernetes.io/name': 'mediagate', role: 'alert-rules' } },
    spec: { groups: rules.groups },
  };
  return `# Generated from rules.yml by \`pnpm observability\`; edit rules.yml, not this file.\n${YAML.stringify(doc, { lineWidth: 0 })}`;
}

const RATE = '$__rate_interval';
/** The dashboard's data source: its `datasource` variable. */
const DATASOURCE = ['$', '{datasource}'].join('');
/** The dashboard's rows and their panels: [title, unit, queries (PromQL, with legends)]. */
const ROWS = [
  [
    'Queues',
    [
      [
        'Jobs by queue and state',
        'short',
        [
          [
            'sum by (queue, state) (mediagate_queue_jobs{state=~"waiting|active|delayed|prioritized|failed"})',
            '{{queue}} {{state}}',
          ],
        ],
      ],
      [
        'Oldest job ready to run',
        's',
        [['max by (queue) (mediagate_queue_oldest_job_age_seconds{state="waiting"})', '{{queue}}']],
      ],
      [
        'Oldest running job',
        's',
        [['max by (queue) (mediagate_queue_oldest_job_age_seconds{state="active"})', '{{queue}}']],
      ],
    ],
  ],
  [
    'Tasks',
    [
      [
        'Unfinished tasks',
        'short',
        [
          ['sum by (state) (mediagate_video_tasks)', '{{state}}'],
          ['sum(mediagate_video_tasks_stuck)', 'stuck (past deadline)'],
        ],
      ],
      [
        'Oldest unfinished task',
        's',
        [['max by (state) (mediagate_video_task_oldest_age_seconds)', '{{state}}']],
      ],
      [
        'Finished tasks per minute',
        'short',
        [[`sum by (outcome) (rate(mediagate_video_task_outcomes_total[${RATE}])) * 60`, '{{outcome}}']],
      ],
      [
        'Time to finish (p50, p95)',
        's',
        [
          [
            `histogram_quantile(0.5, sum by (le) (rate(mediagate_video_task_completion_seconds_bucket[${RATE}])))`,
            'p50',
          ],
          [
            `histogram_quantile(0.95, sum by (le) (rate(mediagate_video_task_completion_seconds_bucket[${RATE}])))`,
            'p95',
          ],
        ],
      ],
      [
        'Unresolved submits (last hour)',
        'short',
        [
          [
            'sum by (reason) (increase(mediagate_video_submits_unresolved_total[1h])) or vector(0)',
            '{{reason}}',
          ],
        ],
      ],
      [
        'Reconciler actions (last hour)',
        'short',
        [['sum by (action) (increase(mediagate_reconciler_actions_total[1h]))', '{{action}}']],
      ],
    ],
  ],
  [
    'Upstream',
    [
      [
        'Vendor calls per second',
        'reqps',
        [
          [
            `sum by (channel, operation, outcome) (rate(mediagate_upstream_request_duration_seconds_count[${RATE}]))`,
            '{{channel}} {{operation}} {{outcome}}',
          ],
        ],
      ],
      [
        'Vendor errors per second (429s are Throttling*)',
        'reqps',
        [
          [
            `sum by (channel, code) (rate(mediagate_upstream_errors_total[${RATE}])) or vector(0)`,
            '{{channel}} {{code}}',
          ],
        ],
      ],
      [
        'Vendor latency p95',
        's',
        [
          [
            `histogram_quantile(0.95, sum by (le, operation) (rate(mediagate_upstream_request_duration_seconds_bucket[${RATE}])))`,
            '{{operation}}',
          ],
        ],
      ],
      [
        'Breakers open (processes)',
        'short',
        [
          [
            'sum by (channel, state) (mediagate_upstream_channel_state{state!="closed"})',
            '{{channel}} {{state}}',
          ],
        ],
      ],
    ],
  ],
  [
    'Callbacks',
    [
      [
        'Callback attempts per second',
        'reqps',
        [[`sum by (outcome) (rate(mediagate_callback_attempts_total[${RATE}]))`, '{{outcome}}']],
      ],
      ['Callback backlog', 'short', [['sum by (state) (mediagate_callback_backlog)', '{{state}}']]],
      [
        'Oldest undelivered callback',
        's',
        [['max(mediagate_callback_backlog_oldest_age_seconds)', 'oldest']],
      ],
      [
        'Event to delivery (p50, p95)',
        's',
        [
          [
            `histogram_quantile(0.5, sum by (le) (rate(mediagate_callback_delivery_seconds_bucket[${RATE}])))`,
            'p50',
          ],
          [
            `histogram_quantile(0.95, sum by (le) (rate(mediagate_callback_delivery_seconds_bucket[${RATE}])))`,
            'p95',
          ],
        ],
      ],
      ['Webhook endpoints disabled', 'short', [['max(mediagate_webhook_endpoints_disabled)', 'disabled']]],
    ],
  ],
  [
    'Payments',
    [
      [
        'Top-up orders (last hour)',
        'short',
        [
          [
            'sum by (provider, outcome) (increase(mediagate_topup_orders_total[1h])) or vector(0)',
            '{{provider}} {{outcome}}',
          ],
        ],
      ],
      [
        'Payment notifications (last hour)',
        'short',
        [
          [
            'sum by (provider, outcome) (increase(mediagate_payment_notifications_total[1h])) or vector(0)',
            '{{provider}} {{outcome}}',
          ],
        ],
      ],
      [
        'Refused notifications (last hour)',
        'short',
        [
          [
            'sum by (provider, reason) (increase(mediagate_payment_notifications_refused_total[1h])) or vector(0)',
            '{{provider}} {{reason}}',
          ],
        ],
      ],
    ],
  ],
  [
    'Money',
    [
      [
        'Charged and refunded, USD per hour',
        'currencyUSD',
        [[`sum by (kind) (rate(mediagate_billing_micro_usd_total[${RATE}])) * 3600 / 1e6`, '{{kind}}']],
      ],
      [
        'Accounts off their ledger (expected 0)',
        'short',
        [
          ['max(mediagate_ledger_mismatched_accounts)', 'mismatched'],
          ['time() - max(mediagate_ledger_check_timestamp_seconds)', 'seconds since the check'],
        ],
      ],
      [
        'Image call settlements (last hour)',
        'short',
        [
          [
            'sum by (outcome) (increase(mediagate_image_call_settlements_total[1h])) or vector(0)',
            '{{outcome}}',
          ],
        ],
      ],
    ],
  ],
  [
    'Media',
    [
      [
        'Copies into storage (last hour)',
        'short',
        [['sum by (outcome) (increase(mediagate_media_copies_total[1h])) or vector(0)', '{{outcome}}']],
      ],
      ['Copy backlog', 'short', [['sum by (state) (mediagate_media_copy_backlog)', '{{state}}']]],
      [
        'Oldest video waiting for its copy',
        's',
        [['max(mediagate_media_copy_backlog_oldest_age_seconds)', 'oldest']],
      ],
      ['Stored', 'bytes', [['max(mediagate_media_stored_bytes)', 'bytes']]],
    ],
  ],
  [
    'Objectives (99.9 %)',
    [
      [
        'API: 5xx share (1 h, 6 h) against the budget',
        'percentunit',
        [
          ['mediagate:slo_api_availability:error_ratio_rate1h', '1 h'],
          ['mediagate:slo_api_availability:error_ratio_rate6h', '6 h'],
          ['vector(0.001)', 'budget'],
        ],
      ],
      [
        'Video tasks: failed by the service (1 h, 6 h)',
        'percentunit',
        [
          ['mediagate:slo_task_success:error_ratio_rate1h', '1 h'],
          ['mediagate:slo_task_success:error_ratio_rate6h', '6 h'],
          ['vector(0.001)', 'budget'],
        ],
      ],
      [
        'Callbacks: delivered after 60 s (1 h, 6 h)',
        'percentunit',
        [
          ['mediagate:slo_callback_latency:error_ratio_rate1h', '1 h'],
          ['mediagate:slo_callback_latency:error_ratio_rate6h', '6 h'],
          ['vector(0.001)', 'budget'],
        ],
      ],
      [
        'Processes by role',
        'short',
        [
          ['count by (role) (mediagate_worker_role)', '{{role}}'],
          ['sum(mediagate_fleet_reporter)', 'fleet reporter (expected 1)'],
        ],
      ],
    ],
  ],
];

/** The Grafana dashboard (schema 39): one row per area, four panels across. */
export function dashboard() {
  const panels = [];
  let id = 1;
  let y = 0;
  for (const [row, items] of ROWS) {
    panels.push({
      id: id++,
      type: 'row',
      title: row,
      collapsed: false,
      gridPos: { h: 1, w: 24, x: 0, y: y++ },
      panels: [],
    });
    items.forEach(([title, unit, queries], i) => {
      panels.push({
        id: id++,
        type: 'timeseries',
        title,
        datasource: { type: 'prometheus', uid: DATASOURCE },
        fieldConfig: { defaults: { unit }, overrides: [] },
        options: { legend: { displayMode: 'list', placement: 'bottom' }, tooltip: { mode: 'multi' } },
        gridPos: { h: 8, w: 6, x: (i % 4) * 6, y: y + Math.floor(i / 4) * 8 },
        targets: queries.map(([expr, legendFormat], j) => ({
          refId: String.fromCharCode(65 + j),
          datasource: { type: 'prometheus', uid: DATASOURCE },
          expr,
          legendFormat,
        })),
      });
    });
    y += Math.ceil(items.length / 4) * 8;
  }
  const doc = {
    uid: 'mediagate',
    title: 'mediagate',
    tags: ['mediagate'],
    timezone: 'browser',
    schemaVersion: 39,
    version: 1,
    refresh: '30s',
    time: { from: 'now-6h', to: 'now' },
    templating: {
      list: [
        { name: 'datasource', type: 'datasource', query: 'prometheus', label: 'Prometheus', current: {} },
      ],
    },
    annotations: { list: [] },
    panels,
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}

function main() {
  const check = process.argv.includes('--check');
  const files = [
    ['prometheus-rule.yaml', prometheusRule(readFileSync(path.join(DIR, 'rules.yml'), 'utf8'))],
    ['grafana/mediagate.json', dashboard()],
  ];
  let stale = 0;
  for (const [name, text] of files) {
    const file = path.join(DIR, name);
    let onDisk = '';
    try {
      onDisk = readFileSync(file, 'utf8');
    } catch {}
    if (onDisk === text) continue;
    if (check) {
      console.error(
        `deploy/observability/${name} is not what rules.yml and the dashboard panels make: run pnpm observability`,
      );
      stale += 1;
    } else {
      writeFileSync(file, text);
      console.log(`wrote deploy/observability/${name}`);
    }
  }
  process.exit(stale ? 1 : 0);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
