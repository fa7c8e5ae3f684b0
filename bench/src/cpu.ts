import { execSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import type { Database } from '@mediagate/shared/db';

const TICKS = (() => {
  try {
    return Number(execSync('getconf CLK_TCK', { encoding: 'utf8' }).trim()) || 100;
  } catch {
    return 100;
  }
})();

/**
 * user + system CPU of a process so far, in ms (0 once it is gone); with `children`, that of its
 * child processes that have exited instead (e.g. the ffmpeg runs that make thumbnails)
 */
function cpuMs(pid: number, children = false): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // utime, stime, cutime, cstime
    const [user, system] = children ? [fields[13], fields[14]] : [fields[11], fields[12]];
    return ((Number(user) + Number(system)) * 1000) / TICKS;
  } catch {
    return 0;
  }
}

/** the parent of a process (0 when it is gone) */
function parentPid(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]) || 0;
  } catch {
    return 0;
  }
}

/** read and write system calls of a process so far (`/proc/<pid>/io`; zeros once it is gone) */
export function syscallCounts(pid: number): { reads: number; writes: number } {
  try {
    const io = readFileSync(`/proc/${pid}/io`, 'utf8');
    const field = (name: string) => Number(new RegExp(`^${name}: (\\d+)`, 'm').exec(io)?.[1] ?? 0);
    return { reads: field('syscr'), writes: field('syscw') };
  } catch {
    return { reads: 0, writes: 0 };
  }
}

export interface CpuSnapshot {
  byGroup: Map<string, Map<number, number>>;
  /** write system calls per group and process (sockets, pipes, files: each message sent costs one) */
  writes: Map<string, Map<number, number>>;
  bench: NodeJS.CpuUsage;
}

/**
 * CPU time per group of processes: the gateway's processes by name, the child processes they ran
 * (`children`: ffmpeg), this bench process, and the Postgres backends connected to the scenario's
 * database (pg_stat_activity).
 */
export async function cpuSnapshot(
  procs: Array<{ name: string; pid: number }>,
  database: Database,
): Promise<CpuSnapshot> {
  const byGroup = new Map<string, Map<number, number>>();
  const writes = new Map<string, Map<number, number>>();
  const put = (m: Map<string, Map<number, number>>, group: string, pid: number, v: number) => {
    const g = m.get(group) ?? new Map<number, number>();
    m.set(group, g);
    g.set(pid, v);
  };
  const add = (group: string, pid: number, children = false) => {
    put(byGroup, group, pid, cpuMs(pid, children));
    if (!children) put(writes, group, pid, syscallCounts(pid).writes);
  };
  for (const p of procs) {
    add(p.name.replace(/-\d+$/, ''), p.pid);
    add('children', p.pid, true);
  }
  const { rows } = await database.pool.query<{ pid: number }>(
    `select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()`,
  );
  for (const r of rows) add('postgres', r.pid);
  // Backends that exit (a pool closes idle connections, and opens new ones under load) take their
  // CPU with them; the postmaster, their parent, is credited with it once it reaps them.
  const postmaster = rows.length > 0 ? parentPid(rows[0]!.pid) : 0;
  if (postmaster > 0) put(byGroup, 'postgres-exited', postmaster, cpuMs(postmaster, true));
  put(writes, 'bench', process.pid, syscallCounts(process.pid).writes);
  return { byGroup, writes, bench: process.cpuUsage() };
}

/**
 * CPU ms per group between two snapshots; a process that appeared in between counts whole.
 * `postgres-exited`: the backends that exited in between (every exited child of the postmaster:
 * the scenario's backends, autovacuum workers, and any other database's, so the machine must be
 * quiet), less what those of the scenario had spent before the first snapshot.
 */
export function cpuBetween(before: CpuSnapshot, after: CpuSnapshot): Map<string, number> {
  const out = groupDeltas(before.byGroup, after.byGroup);
  const live = after.byGroup.get('postgres');
  let spentBefore = 0;
  for (const [pid, ms] of before.byGroup.get('postgres') ?? []) if (!live?.has(pid)) spentBefore += ms;
  if (out.has('postgres-exited'))
    out.set('postgres-exited', Math.max(0, out.get('postgres-exited')! - spentBefore));
  const bench = process.cpuUsage(before.bench);
  out.set('bench', (bench.user + bench.system) / 1000);
  return out;
}

/** write system calls per group between two snapshots (a process that appeared in between counts whole) */
export function writesBetween(before: CpuSnapshot, after: CpuSnapshot): Map<string, number> {
  return groupDeltas(before.writes, after.writes);
}

function groupDeltas(
  before: Map<string, Map<number, number>>,
  after: Map<string, Map<number, number>>,
): Map<string, number> {
  const out = new Map<string, number>();
  for (const [group, pids] of after) {
    let total = 0;
    for (const [pid, v] of pids) total += Math.max(0, v - (before.get(group)?.get(pid) ?? 0));
    out.set(group, total);
  }
  return out;
}

/** CPU ms of one process so far (exported for processes outside the group, e.g. redis-server). */
export const processCpuMs = cpuMs;

/** calls per Redis command so far (`INFO commandstats`) */
export async function redisCommandCounts(redis: {
  info: (section: string) => Promise<string>;
}): Promise<Map<string, number>> {
  const out = new Map<string, number>();
  for (const line of (await redis.info('commandstats')).split('\n')) {
    const m = /^cmdstat_([^:]+):calls=(\d+)/.exec(line.trim());
    if (m) out.set(m[1]!, Number(m[2]));
  }
  return out;
}

export function countsBetween(before: Map<string, number>, after: Map<string, number>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [k, v] of after) {
    const d = v - (before.get(k) ?? 0);
    if (d > 0) out.set(k, d);
  }
  return out;
}

/** the scenario database's commits, rollbacks and row counters so far (`pg_stat_database`) */
export async function postgresCounts(database: Database): Promise<Map<string, number>> {
  // the statistics of the current transaction are cached: read them fresh
  await database.pool.query('select pg_stat_clear_snapshot()');
  const { rows } = await database.pool.query<Record<string, string>>(
    `select xact_commit, xact_rollback, tup_returned, tup_fetched, tup_inserted, tup_updated, tup_deleted
       from pg_stat_database where datname = current_database()`,
  );
  const out = new Map(Object.entries(rows[0] ?? {}).map(([k, v]) => [k, Number(v)]));
  // per table: sequential scans and the rows they read, index scans
  const tables = await database.pool.query<{
    relname: string;
    seq_scan: string;
    seq_tup_read: string;
    idx_scan: string;
  }>(`select relname, seq_scan, seq_tup_read, coalesce(idx_scan, 0) as idx_scan from pg_stat_user_tables`);
  for (const t of tables.rows) {
    out.set(`${t.relname}.seq_scan`, Number(t.seq_scan));
    out.set(`${t.relname}.seq_tup_read`, Number(t.seq_tup_read));
    out.set(`${t.relname}.idx_scan`, Number(t.idx_scan));
  }
  // per index: the entries its scans read (a scan that reads more as a table grows shows here)
  const indexes = await database.pool.query<{ indexrelname: string; idx_tup_read: string }>(
    `select indexrelname, idx_tup_read from pg_stat_user_indexes`,
  );
  for (const i of indexes.rows) out.set(`${i.indexrelname}.idx_tup_read`, Number(i.idx_tup_read));
  return out;
}
