import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Database } from '@mediagate/shared';

const TICKS = (() => {
  try {
    return Number(execSync('getconf CLK_TCK', { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/** user + system CPU of a process so far, in ms (0 once it is gone) */
function cpuMs(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS;
  } catch {
    return 0;
  }
}

export interface CpuSnapshot {
  byGroup: Map<string, Map<number, number>>;
  bench: NodeJS.CpuUsage;
}

/**
 * CPU time per group of processes: the gateway's processes by name, this bench process, and the
 * Postgres backends connected to the scenario's database (pg_stat_activity). Redis is shared with
 * other users of the machine and is not counted.
 */
export async function cpuSnapshot(
  procs: Array<{ name: string; pid: number }>,
  database: Database,
): Promise<CpuSnapshot> {
  const byGroup = new Map<string, Map<number, number>>();
  const add = (group: string, pid: number) => {
    let g = byGroup.get(group);
    if (!g) {
      g = new Map();
      byGroup.set(group, g);
    }
    g.set(pid, cpuMs(pid));
  };
  for (const p of procs) add(p.name.replace(/-\d+$/, ''), p.pid);
  const { rows } = await database.pool.query<{ pid: number }>(
    `select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
  );
  for (const r of rows) add('postgres', r.pid);
  return { byGroup, bench: process.cpuUsage() };
}

/** CPU ms per group between two snapshots; a process that appeared in between counts whole. */
export async function cpuBetween(
  before: CpuSnapshot,
  procs: Array<{ name: string; pid: number }>,
  database: Database,
): Promise<Map<string, number>> {
  const after = await cpuSnapshot(procs, database);
  const out = new Map<string, number>();
  for (const [group, pids] of after.byGroup) {
    let total = 0;
    for (const [pid, ms] of pids) total += Math.max(0, ms - (before.byGroup.get(group)?.get(pid) ?? 0));
    out.set(group, total);
  }
  const bench = process.cpuUsage(before.bench);
  out.set('bench', (bench.user + bench.system) / 1000);
  return out;
}
