import { getAccount } from '@mediagate/shared/accounts';
import { type RunningSim, startUpstreamSim } from '@mediagate/shared/testing';
import { startTestApi, type TestApi } from './harness';

/**
 * Upstream channels for the API under test: for each simulator, in order, one Ark and one DashScope
 * channel (named `ark-<i>` / `dashscope-<i>`), the first simulator first (priority = its index).
 */
export function simChannels(sims: ReadonlyArray<{ url: string }>): string {
  return JSON.stringify(
    sims.flatMap((sim, i) => [
      { name: `ark-${i}`, vendor: 'ark', baseUrl: sim.url, apiKey: `sk-ark-${i}`, priority: i },
      { name: `dashscope-${i}`, vendor: 'dashscope', baseUrl: sim.url, apiKey: `sk-ds-${i}`, priority: i },
    ]),
  );
}

/** Simulators as real processes and the API app using them as its channels. */
export async function startImagesApi(
  opts: { sims?: number; config?: Parameters<typeof startTestApi>[0] } = {},
): Promise<{ api: TestApi; sims: RunningSim[]; close: () => Promise<void> }> {
  const sims = await Promise.all(Array.from({ length: opts.sims ?? 1 }, () => startUpstreamSim()));
  const api = await startTestApi({
    UPSTREAM_CHANNELS: simChannels(sims),
    IMAGE_UPSTREAM_TIMEOUT_MS: 10_000,
    ...opts.config,
  });
  return {
    api,
    sims,
    close: async () => {
      await api.close();
      await Promise.all(sims.map((s) => s.stop()));
    },
  };
}

/** A real PNG of the given size, as the simulator serves it. */
export async function pngBytes(sim: { url: string }, width: number, height: number): Promise<Buffer> {
  const res = await fetch(`${sim.url}/media/images/fixture-${width}x${height}.png`);
  if (res.status !== 200) throw new Error(`no PNG from the simulator: ${res.status}`);
  return Buffer.from(await res.arrayBuffer());
}

export const dataUrl = (png: Buffer) => `data:image/png;base64,${png.toString('base64')}`;

/** The balance of an account in micro-USD. */
export async function balanceOf(api: TestApi, accountId: string): Promise<number> {
  return (await getAccount(api.database.db, accountId))!.balanceMicroUsd;
}
