/** A pause of dispatch, as stored. */
export interface DispatchPause {
  /** Endpoint name, or `*` for every endpoint. */
  readonly endpoint: string;
  /** Handler key, or `*` for every handler. */
  readonly handler: string;
  readonly pausedAt: Date;
  readonly pausedBy: string | null;
  readonly reason: string | null;
}

/** What a pause covers; `*` (or left out) is every endpoint or every handler. */
export interface DispatchPauseScope {
  readonly endpoint?: string;
  readonly handler?: string;
}

/** The pauses of dispatch: what operators stop, and what the claim of work honours. */
export interface PauseQueries {
  /** The pauses of dispatch in force, oldest first. */
  pauses(): Promise<DispatchPause[]>;
  /** Pauses dispatch for `scope`; false when it was paused already. */
  pause(
    scope: DispatchPauseScope,
    pausedBy: string | null,
    reason: string | null,
  ): Promise<boolean>;
  /**
   * Lifts the pause of `scope` and makes the events parked by pauses due now (those another
   * pause still holds are parked again when claimed). Null when `scope` was not paused, else
   * how many events were woken.
   */
  resume(scope: DispatchPauseScope): Promise<number | null>;
}
