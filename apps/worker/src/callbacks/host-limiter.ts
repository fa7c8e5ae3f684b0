/**
 * In-flight requests per destination host in this process. A delivery whose host is at its limit
 * is put back as a delayed job instead of waiting for a slot, so a slow or dead endpoint holds at
 * most `perHost` of the dispatcher's slots and never delays deliveries to other hosts.
 */
export class HostLimiter {
  private readonly inFlight = new Map<string, number>();
  constructor(private readonly perHost: number) {}

  /** Takes a slot for `host`; false when the host is at its limit. */
  tryAcquire(host: string): boolean {
    const n = this.inFlight.get(host) ?? 0;
    if (n >= this.perHost) return false;
    this.inFlight.set(host, n + 1);
    return true;
  }

  release(host: string): void {
    const n = (this.inFlight.get(host) ?? 1) - 1;
    if (n <= 0) this.inFlight.delete(host);
    else this.inFlight.set(host, n);
  }

  active(host: string): number {
    return this.inFlight.get(host) ?? 0;
  }
}
