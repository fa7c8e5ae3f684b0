// `pnpm bench [--quick] [--only=create,poll]`: runs each scenario against real processes and
// prints each figure next to a baseline measured in the same run; writes JSON to bench/results/.
// BENCH_BASELINE_DIR=<dir>: the pipeline also runs in the 671fde8 build there (baseline.ts).
import { execSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { baselineRow } from './baseline';
import { markdownTable, type Row } from './report';
import { createScenario } from './scenarios/create';
import { accountsScenario, freshnessScenario } from './scenarios/freshness';
import { imagesScenario } from './scenarios/images';
import { longTasksScenario } from './scenarios/long-tasks';
import { pipelineScenario } from './scenarios/pipeline';
import { pollScenario } from './scenarios/poll';
import { sizeScenario } from './scenarios/size';

const SCENARIOS: Record<string, (o: { quick: boolean }) => Promise<Row[]>> = {
  create: createScenario,
  images: imagesScenario,
  poll: pollScenario,
  pipeline: pipelineScenario,
  long: longTasksScenario,
  size: sizeScenario,
  freshness: freshnessScenario,
  accounts: accountsScenario,
};

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const quick = args.includes('--quick');
  const only = args
    .find((a) => a.startsWith('--only='))
    ?.slice('--only='.length)
    .split(',');
  // the accounts run (two fleets of 5,000 tasks) is part of a full run; a quick one names it
  const names = Object.keys(SCENARIOS).filter((n) =>
    only ? only.includes(n) : !(quick && n === 'accounts'),
  );
  const commit = (() => {
    try {
      return execSync('git rev-parse --short HEAD', { encoding: 'utf8' }).trim();
    } catch {
      return 'unknown';
    }
  })();
  const started = Date.now();
  const rows: Row[] = [];
  for (const name of names) {
    const t0 = Date.now();
    process.stderr.write(`[bench] ${name}...\n`);
    try {
      rows.push(...(await SCENARIOS[name]!({ quick })));
    } catch (err) {
      rows.push({
        scenario: name,
        metric: 'error',
        value: 0,
        unit: '',
        note: (err as Error).message.slice(0, 300),
      });
    }
    process.stderr.write(`[bench] ${name} done in ${Math.round((Date.now() - t0) / 1000)} s\n`);
  }
  const baselineDir = process.env.BENCH_BASELINE_DIR;
  if (baselineDir && names.includes('pipeline')) {
    try {
      rows.push(await baselineRow(baselineDir, rows, quick));
    } catch (err) {
      rows.push({
        scenario: 'pipeline',
        metric: 'error',
        value: 0,
        unit: '',
        note: `baseline: ${(err as Error).message}`,
      });
    }
  }
  const table = markdownTable(rows);
  const header = `commit ${commit}, ${quick ? 'quick' : 'full'} run, ${os.cpus().length} cores, node ${process.version}, ${new Date().toISOString()}, ${Math.round((Date.now() - started) / 1000)} s`;
  process.stdout.write(`${header}\n\n${table}\n`);
  const dir = path.join(__dirname, '..', 'results');
  mkdirSync(dir, { recursive: true });
  const file = path.join(
    dir,
    `${new Date().toISOString().replace(/[:.]/g, '-')}-${commit}${quick ? '-quick' : ''}.json`,
  );
  writeFileSync(file, JSON.stringify({ commit, quick, header, rows }, null, 2));
  process.stderr.write(`[bench] wrote ${file}\n`);
  if (rows.some((r) => r.metric === 'error')) process.exitCode = 1;
}

main().then(
  // every scenario has stopped its processes and closed its clients: a handle left open by a
  // library must not keep the run from ending
  () => process.exit(process.exitCode ?? 0),
  (err) => {
    process.stderr.write(`${(err as Error).stack}\n`);
    process.exit(1);
  },
);
