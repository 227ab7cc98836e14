import { EntityManager } from 'typeorm';

/**
 * How long one SQLite statement waits for another connection's write lock, in ms.
 * better-sqlite3 waits synchronously, the whole process stalled (no request read, no timer
 * run), so the wait is kept short: background work that hits the lock fails and runs again on
 * its own schedule, and the answer path tries again (see {@link retryWhileBusy}).
 */
export const SQLITE_BUSY_TIMEOUT_MS = 100;

/** The pause between two tries of an answer-path write, in which the process serves others. */
const BUSY_PAUSE_MS = 25;

/** The driver's error code, read through TypeORM's `QueryFailedError`. */
function codeOf(error: unknown): string | undefined {
  const failed = error as { code?: unknown; driverError?: { code?: unknown } } | undefined;
  const code = failed?.driverError?.code ?? failed?.code;
  return typeof code === 'string' ? code : undefined;
}

/** True when SQLite refused a statement because another connection holds its lock. */
export function isSqliteBusy(error: unknown): boolean {
  const code = codeOf(error);
  return code !== undefined && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/**
 * Runs `attempt` on the connection of `manager`, again after a pause while SQLite reports
 * another connection's lock, until `until` (ms since the epoch); rethrows the last error then.
 */
export async function retryWhileBusy<T>(
  manager: EntityManager,
  attempt: () => Promise<T>,
  until: number,
): Promise<T> {
  for (let tries = 0; ; tries += 1) {
    // NOTE: tries after the first do not wait inside SQLite, which would stall the process:
    // they wait in the pause between them, where requests are read and timers run.
    const noWait = tries > 0;
    try {
      if (noWait) {
        await manager.query('PRAGMA busy_timeout = 0');
      }
      return await attempt();
    } catch (error) {
      if (!isSqliteBusy(error) || Date.now() >= until) {
        throw error;
      }
    } finally {
      if (noWait) {
        await manager.query(`PRAGMA busy_timeout = ${SQLITE_BUSY_TIMEOUT_MS}`);
      }
    }
    await new Promise((resolve) =>
      setTimeout(resolve, Math.min(BUSY_PAUSE_MS, until - Date.now())),
    );
  }
}
