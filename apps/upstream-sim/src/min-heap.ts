/** A binary min-heap ordered by `key(item)`; push and pop are O(log n), peek is O(1). */
export class MinHeap<T> {
  private readonly items: T[] = [];

  constructor(private readonly key: (item: T) => number) {}

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    const items = this.items;
    items.push(item);
    let i = items.length - 1;
    const k = this.key(item);
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = items[parent]!;
      if (this.key(p) <= k) break;
      items[i] = p;
      i = parent;
    }
    items[i] = item;
  }

  pop(): T | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length === 0 || last === undefined) return top;
    const n = items.length;
    const k = this.key(last);
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= n) break;
      const r = l + 1;
      const child = r < n && this.key(items[r]!) < this.key(items[l]!) ? r : l;
      if (this.key(items[child]!) >= k) break;
      items[i] = items[child]!;
      i = child;
    }
    items[i] = last;
    return top;
  }
}
