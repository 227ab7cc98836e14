/** What a synchronous call threw, as the provider specs compare it; fails when nothing was thrown. */
export function rejection(fn: () => unknown): { name: string; reason?: string; message: string } {
  try {
    fn();
  } catch (error) {
    const e = error as Error & { reason?: string };
    return { name: e.name, reason: e.reason, message: e.message };
  }
  throw new Error('expected a rejection');
}
