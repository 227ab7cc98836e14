/**
 * A set that keeps at most `capacity` keys, forgetting the least recently added first. Remembers
 * what an alert already fired for without growing with every payment ever seen.
 */
export class RecentKeys {
  private readonly keys = new Set<string>();

  constructor(private readonly capacity: number) {}

  has(key: string): boolean {
    return this.keys.has(key);
  }

  /** Adds `key`, forgetting the oldest key when full. */
  add(key: string): void {
    this.keys.delete(key);
    this.keys.add(key);
    if (this.keys.size > this.capacity) {
      const oldest = this.keys.values().next().value as string;
      this.keys.delete(oldest);
    }
  }

  get size(): number {
    return this.keys.size;
  }
}
