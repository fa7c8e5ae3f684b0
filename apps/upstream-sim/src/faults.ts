import { defaultVendorError, type Vendor, VendorError } from './vendor-errors';

/** The simulated APIs a fault can target. */
export const FAULT_APIS = [
  'video.submit',
  'video.query',
  'video.cancel',
  'image_edit',
  'ark_images',
] as const;
export type FaultApi = (typeof FAULT_APIS)[number];

/** Which envelope each API answers in. */
export const FAULT_API_VENDOR: Record<FaultApi, Vendor> = {
  'video.submit': 'dashscope',
  'video.query': 'dashscope',
  'video.cancel': 'dashscope',
  image_edit: 'dashscope',
  ark_images: 'ark',
};

/** What the control API accepts (see apps/upstream-sim/README.md): an error to inject and/or a delay to add. */
export interface FaultSpec {
  api: FaultApi;
  status?: number;
  code?: string;
  message?: string;
  /** the next `count` requests fail, then the fault is gone */
  count?: number;
  /** each request fails with this probability (combined with `count`: each of the next `count`) */
  rate?: number;
  /** added to every request of the API while the fault exists */
  latencyMs?: number;
  /** every request fails until the faults are cleared (default status 503) */
  outage?: boolean;
  retryAfterSeconds?: number;
}

/** A fault as stored: its spec, an id, and how many requests `count` has left. */
export interface ActiveFault extends FaultSpec {
  id: number;
  remaining?: number;
  /** requests this fault has failed so far */
  triggered: number;
}

/** What a fault decision asks of one request. */
export interface FaultDecision {
  latencyMs: number;
  error?: VendorError;
}

const NO_FAULT: FaultDecision = { latencyMs: 0 };

/**
 * Injected faults per API, applied in the order they were added. Latency adds up over the API's faults;
 * the first fault that fires decides the error. With no fault for an API, a decision costs one Map lookup.
 */
export class FaultRegistry {
  private readonly byApi = new Map<FaultApi, ActiveFault[]>();
  private nextId = 1;

  /** Adds a fault and returns it as stored. */
  add(spec: FaultSpec): ActiveFault {
    const fault: ActiveFault = { ...spec, id: this.nextId++, triggered: 0 };
    if (spec.count !== undefined) fault.remaining = spec.count;
    const list = this.byApi.get(spec.api) ?? [];
    list.push(fault);
    this.byApi.set(spec.api, list);
    return fault;
  }

  /** Removes the faults of `api`, or every fault. */
  clear(api?: FaultApi): void {
    if (api) this.byApi.delete(api);
    else this.byApi.clear();
  }

  list(): ActiveFault[] {
    return [...this.byApi.values()].flat().sort((a, b) => a.id - b.id);
  }

  /** Decides the added latency and the injected error (if any) for one request of `api`. */
  decide(api: FaultApi, random: () => number = Math.random): FaultDecision {
    const list = this.byApi.get(api);
    if (!list || list.length === 0) return NO_FAULT;
    let latencyMs = 0;
    let fired: ActiveFault | undefined;
    for (const fault of [...list]) {
      latencyMs += fault.latencyMs ?? 0;
      if (fired) continue;
      if (fault.outage) {
        fired = fault;
      } else if (fault.remaining !== undefined) {
        fault.remaining -= 1;
        if (fault.rate === undefined || random() < fault.rate) fired = fault;
        if (fault.remaining <= 0) list.splice(list.indexOf(fault), 1);
      } else if (fault.rate !== undefined && random() < fault.rate) {
        fired = fault;
      }
    }
    if (!fired) return { latencyMs };
    fired.triggered += 1;
    return { latencyMs, error: faultError(api, fired) };
  }
}

function faultError(api: FaultApi, fault: ActiveFault): VendorError {
  const vendor = FAULT_API_VENDOR[api];
  const status = fault.status ?? (fault.outage ? 503 : 500);
  const fallback = defaultVendorError(vendor, status);
  const headers: Record<string, string> = {};
  if (fault.retryAfterSeconds !== undefined) headers['retry-after'] = String(fault.retryAfterSeconds);
  return new VendorError(
    vendor,
    status,
    fault.code ?? fallback.code,
    fault.message ?? fallback.message,
    undefined,
    headers,
  );
}

/** Applies the injected faults of `api`: waits the added latency, then throws the injected error if any. */
export async function passFaults(faults: FaultRegistry, api: FaultApi): Promise<void> {
  const decision = faults.decide(api);
  await sleep(decision.latencyMs);
  if (decision.error) throw decision.error;
}

/** Resolves after `ms` (no timer at all for 0). */
function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
