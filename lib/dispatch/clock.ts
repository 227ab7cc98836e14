/** Where the dispatcher reads the time: settlement times, lease times, handler durations. */
export interface Clock {
  now(): Date;
}

/** The system clock. */
export const systemClock: Clock = { now: () => new Date() };
