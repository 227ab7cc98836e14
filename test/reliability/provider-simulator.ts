import { Random } from './random';
import { ProviderKind, ProviderSender } from './senders';
import { SimulatorLog } from './simulator-log';
import { Message } from './workload';

/** How the simulator reaches the shop and how hard it pushes. */
export interface SimulatorOptions {
  readonly senders: Readonly<Record<ProviderKind, ProviderSender>>;
  /**
   * Base URLs of the shop's instances; each attempt goes to one of them at random, as through
   * a load balancer without health checks (a dead instance costs the sender an attempt).
   */
  readonly targets: readonly string[];
  /** Requests in flight at once, over all providers. */
  readonly concurrency: number;
  readonly random: Random;
  readonly log: SimulatorLog;
}

/** An invalid delivery is sent again only when it got no answer at all, this many times. */
const INVALID_ATTEMPTS = 10;
const INVALID_RETRY_MS = 2000;
const BODY_IN_LOG = 80;

/** Counts the simulator keeps while it runs, for progress output. */
export interface SimulatorProgress {
  attempts: number;
  acknowledged: number;
  gaveUp: number;
  settled: number;
}

/**
 * Plays the providers: sends every message at its time, retries on the provider's schedule
 * until the provider's own success rule is met or the provider gives up, and logs each attempt.
 */
export class ProviderSimulator {
  readonly progress: SimulatorProgress = { attempts: 0, acknowledged: 0, gaveUp: 0, settled: 0 };
  private inFlight = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly options: SimulatorOptions) {}

  /** Sends `messages` (times relative to `start`, in ms since the epoch) and waits for all. */
  async send(messages: readonly Message[], start: number): Promise<void> {
    messages.forEach((message) => this.options.log.message(message));
    await Promise.all(messages.map((message) => this.deliver(message, start)));
  }

  private async deliver(message: Message, start: number): Promise<void> {
    await sleep(start + message.at - Date.now());
    const sender = this.options.senders[message.provider];
    for (let attempt = 1; ; attempt += 1) {
      const answered = await this.attempt(message, attempt, sender);
      if (message.valid ? answered === 'accepted' : answered !== 'none') {
        this.progress.acknowledged += message.valid ? 1 : 0;
        this.progress.settled += 1;
        return;
      }
      const delay = message.valid
        ? sender.nextDelayMs(attempt, this.options.random)
        : attempt < INVALID_ATTEMPTS
          ? INVALID_RETRY_MS
          : undefined;
      if (delay === undefined) {
        this.options.log.write({
          type: 'gave-up',
          message: message.id,
          attempts: attempt,
          at: Date.now(),
        });
        this.progress.gaveUp += 1;
        this.progress.settled += 1;
        return;
      }
      await sleep(delay);
    }
  }

  /** One HTTP attempt; says whether the provider counts it as delivered. */
  private async attempt(
    message: Message,
    attempt: number,
    sender: ProviderSender,
  ): Promise<'accepted' | 'refused' | 'none'> {
    const { targets, random, log } = this.options;
    const target = targets[Math.floor(random() * targets.length)];
    await this.acquire();
    const startedAt = Date.now();
    let status: number | null = null;
    let text: string | undefined;
    let error: string | undefined;
    try {
      const request = message.request();
      const response = await fetch(`${target}/webhooks/${sender.endpoint}`, {
        method: 'POST',
        body: request.body,
        headers: request.headers,
        // NOTE: providers do not follow redirects (Qvard says so); a 3xx is a failed attempt.
        redirect: 'manual',
        signal: AbortSignal.timeout(sender.timeoutMs),
      });
      text = await response.text();
      status = response.status;
    } catch (caught) {
      status = null;
      error = reasonOf(caught);
    } finally {
      this.release();
    }
    this.progress.attempts += 1;
    const accepted = status !== null && message.valid && sender.accepts(status, text ?? '');
    log.write({
      type: 'attempt',
      message: message.id,
      attempt,
      target,
      startedAt,
      endedAt: Date.now(),
      status,
      ...(text === undefined ? {} : { body: text.slice(0, BODY_IN_LOG) }),
      ...(error === undefined ? {} : { error }),
      accepted,
    });
    return accepted ? 'accepted' : status === null ? 'none' : 'refused';
  }

  private async acquire(): Promise<void> {
    if (this.inFlight < this.options.concurrency) {
      this.inFlight += 1;
      return;
    }
    await new Promise<void>((resolve) => this.waiting.push(resolve));
  }

  private release(): void {
    const next = this.waiting.shift();
    if (next) {
      next();
    } else {
      this.inFlight -= 1;
    }
  }
}

/** Why a request got no answer: `timeout` or the socket error code. */
function reasonOf(error: unknown): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return 'timeout';
  }
  const cause = (error as { cause?: { code?: string; message?: string } }).cause;
  return cause?.code ?? cause?.message ?? (error instanceof Error ? error.message : String(error));
}

/** Resolves after `ms` (at once for zero or less). */
export function sleep(ms: number): Promise<void> {
  return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
