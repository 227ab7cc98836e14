export const WORK_VACUUM_FAILED = (error: string) =>
  `VACUUM of webhook_work failed (${error}); it is not tried again in this process. Claims get ` +
  'slower as the table fills with dead rows unless autovacuum keeps up with it: see ' +
  'docs/operations.md#storage, or set storage.vacuumWorkEvery to 0 to stop trying.';
