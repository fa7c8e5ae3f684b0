// BENCH_BASELINE_DIR=<dir>: a worktree of 671fde8 built by bench/baseline/setup-671fde8.sh (the
// build whose pipeline measured the issue's 14 ms of CPU per task). After this run's pipeline, the
// same pipeline runs there, on the same machine and node, and the CPU per task of this build stands
// next to that one: a figure from another day is no baseline on a machine whose speed drifts.
import { spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { NODE_FLAGS } from '@mediagate/shared/config';
import { type Row, ratioRow } from './report';

/** The metric both builds print for the task path's CPU (the pipeline scenario's). */
const CPU_METRIC = 'CPU per task, every process but Redis, marginal';

const cpuRow = (rows: Row[]) =>
  rows.find((r) => r.scenario === 'pipeline' && r.metric.startsWith(CPU_METRIC));

/** Runs the baseline build's pipeline and returns the row of this build's CPU per task against it. */
export async function baselineRow(baselineDir: string, rows: Row[], quick: boolean): Promise<Row> {
  const dir = path.resolve(baselineDir);
  const current = cpuRow(rows);
  if (!current) throw new Error('no pipeline CPU figure in this run to set against the baseline');
  const main = path.join(dir, 'bench', 'dist', 'main.js');
  if (!existsSync(main)) throw new Error(`${main} is missing: run bench/baseline/setup-671fde8.sh ${dir}`);
  const results = path.join(dir, 'bench', 'results');
  const listed = () => (existsSync(results) ? readdirSync(results).filter((f) => f.endsWith('.json')) : []);
  const before = new Set(listed());
  process.stderr.write(`[bench] baseline: the pipeline of the build in ${dir}...\n`);
  // this run's environment, less what points at this run: the baseline must not start a baseline
  // of its own, nor write its CPU profiles among this build's
  const { BENCH_BASELINE_DIR: _self, BENCH_CPU_PROF_DIR: _profiles, ...env } = process.env;
  const ended = await new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
    (resolve, reject) => {
      const child = spawn(process.execPath, [main, '--only=pipeline', ...(quick ? ['--quick'] : [])], {
        cwd: dir,
        // the old build's processes get the V8 flags every process runs with today, and this run's
        // extra ones; it makes no media copies, which this build's CPU per task leaves out anyway
        // (they are measured after its window)
        env: {
          ...env,
          BENCH_NODE_ARGS: [...NODE_FLAGS, process.env.BENCH_NODE_ARGS ?? ''].join(' ').trim(),
          BENCH_PIPELINE_COPIES: '0',
        },
        // its table goes with this run's progress lines, so that a failure shows its reason
        stdio: ['ignore', process.stderr, 'inherit'],
      });
      // a pipeline run takes minutes: one that has not ended in an hour has hung
      const timer = setTimeout(() => child.kill('SIGKILL'), 3_600_000);
      child.on('error', (err) => {
        clearTimeout(timer);
        reject(err);
      });
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        resolve({ code, signal });
      });
    },
  );
  const written = listed().filter((f) => !before.has(f));
  const theirs =
    written.length === 1
      ? (JSON.parse(readFileSync(path.join(results, written[0]!), 'utf8')) as { header: string; rows: Row[] })
      : undefined;
  if (ended.code !== 0) {
    const errors = (theirs?.rows ?? []).filter((r) => r.metric === 'error').map((r) => r.note);
    const how = ended.signal ?? `exit code ${ended.code}`;
    throw new Error(`the baseline run ended with ${how}${errors.length ? `: ${errors.join('; ')}` : ''}`);
  }
  if (!theirs) throw new Error(`the baseline run wrote ${written.length} result files, not 1`);
  const old = cpuRow(theirs.rows);
  if (!old) throw new Error('the baseline run printed no pipeline CPU figure');
  return ratioRow({
    scenario: 'pipeline',
    metric: 'CPU per task against the baseline build, same session',
    value: current.value,
    unit: 'ms',
    baseline: old.value,
    baselineLabel: theirs.header.split(',')[0] ?? 'baseline',
    // the halving target is withdrawn (issue 30); no change may make it worse than 1.05 of it
    target: '<= 1.05 of it',
    higherIsBetter: false,
    maxRatio: 1.05,
    note: `baseline: ${old.note ?? ''}`,
  });
}
