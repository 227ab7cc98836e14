import { createWriteStream, readFileSync, WriteStream } from 'node:fs';
import { Message } from './workload';
import { ProviderKind } from './senders';

/** A delivery as the log keeps it (no request builder). */
export interface MessageRecord {
  readonly type: 'message';
  readonly message: number;
  readonly provider: ProviderKind;
  readonly orderId: string;
  readonly eventId: string;
  readonly effect: Message['effect'];
  readonly label: string;
  readonly valid: boolean;
  readonly copy: Message['copy'];
  readonly bodySha256: string;
}

/** One HTTP attempt and its answer (or why there was none). */
export interface AttemptRecord {
  readonly type: 'attempt';
  readonly message: number;
  readonly attempt: number;
  /** Which app instance the attempt went to. */
  readonly target: string;
  readonly startedAt: number;
  readonly endedAt: number;
  /** HTTP status, or null when no answer came (refused, reset, timeout). */
  readonly status: number | null;
  /** The answer's body, cut short. */
  readonly body?: string;
  /** `timeout`, `ECONNREFUSED`, `ECONNRESET`, … when no answer came. */
  readonly error?: string;
  /** The provider counts this attempt as delivered. */
  readonly accepted: boolean;
}

/** The sender stopped trying: attempts exhausted (valid) or no answer at all (invalid). */
export interface GaveUpRecord {
  readonly type: 'gave-up';
  readonly message: number;
  readonly attempts: number;
  readonly at: number;
}

/** A fault the runner injected, with its real-time window. */
export interface FaultRecord {
  readonly type: 'fault';
  readonly kind: 'kill' | 'worker-kill' | 'pg-stop' | 'pg-cut' | 'redis-restart' | 'redis-flush';
  /** The process killed, for `kill` and `worker-kill`. */
  readonly instance?: string;
  /** When the fault took effect (process dead, server stopped, connections cut). */
  readonly startedAt: number;
  /** When the runner began to undo it (restart of the process or the server). */
  readonly restoringAt: number;
  /** When it was over (process ready again, server accepting connections). */
  readonly endedAt: number;
  /** Connections terminated, for `pg-cut`. */
  readonly terminated?: number;
}

/** Anything in the simulator's log. */
export type LogRecord = MessageRecord | AttemptRecord | GaveUpRecord | FaultRecord;

/** The simulator's own log: one JSON record per line, written as things happen. */
export class SimulatorLog {
  private readonly stream: WriteStream;

  constructor(readonly path: string) {
    this.stream = createWriteStream(path, { flags: 'w' });
  }

  /** Records a delivery the simulator is about to send. */
  message(message: Message): void {
    this.write({
      type: 'message',
      message: message.id,
      provider: message.provider,
      orderId: message.orderId,
      eventId: message.eventId,
      effect: message.effect,
      label: message.label,
      valid: message.valid,
      copy: message.copy,
      bodySha256: message.bodySha256,
    });
  }

  /** Appends one record. */
  write(record: LogRecord): void {
    this.stream.write(`${JSON.stringify(record)}\n`);
  }

  /** Flushes and closes the file. */
  close(): Promise<void> {
    return new Promise((resolve, reject) => {
      this.stream.end((error?: Error | null) => (error ? reject(error) : resolve()));
    });
  }
}

/** Reads a log written by `SimulatorLog`. */
export function readSimulatorLog(path: string): LogRecord[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((line) => line.length > 0)
    .map((line) => JSON.parse(line) as LogRecord);
}
