/** What the dispatcher logs through (a `SafeLogger` in the module). */
export interface DispatchLogger {
  debug(message: string): void;
  warn(message: string): void;
  error(message: string): void;
}
