import { CliStream } from './cli-io';

const BAR_WIDTH = 30;

/**
 * Progress of a long operation on stderr: a bar redrawn in place when a person watches (a TTY),
 * one plain line per update otherwise (logs, CI, pipes).
 * @example
 * const progress = new ProgressReporter(io.stderr, 'replayed', total);
 * await admin.replay({ ...filter, onProgress: (done) => progress.update(done) });
 * progress.finish(report.replayed);
 */
export class ProgressReporter {
  private drawn = false;

  /**
   * @param total the expected count; updates beyond it grow it (events may arrive meanwhile).
   */
  constructor(
    private readonly stream: CliStream,
    private readonly label: string,
    private total: number,
  ) {}

  /** Shows that `done` items are finished. */
  update(done: number): void {
    this.total = Math.max(this.total, done);
    if (this.stream.isTTY) {
      const share = this.total === 0 ? 1 : done / this.total;
      const filled = Math.round(share * BAR_WIDTH);
      const bar = `${'#'.repeat(filled)}${'-'.repeat(BAR_WIDTH - filled)}`;
      this.stream.write(
        `\r[${bar}] ${done}/${this.total} ${this.label} (${Math.round(share * 100)}%)`,
      );
      this.drawn = true;
    } else {
      this.stream.write(`${this.label} ${done}/${this.total}\n`);
    }
  }

  /** Ends the bar's line. */
  finish(): void {
    if (this.drawn) {
      this.stream.write('\n');
      this.drawn = false;
    }
  }
}
