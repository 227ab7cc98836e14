import { CLI_NAME, CliCommand } from '../cli-command';
import { CliUsageError } from '../cli-errors';

const WHY =
  "reconcile runs inside the app: it needs the endpoints' provider API credentials and the " +
  "app's PendingPaymentsSource (which payments the app still believes unfinished), and a bare " +
  'CLI has neither. Call ReconciliationService.reconcile({ endpoint }) from the app (a @Cron() ' +
  'method or an admin route), or schedule it with WebhooksModule.forRoot({ reconciliation: ' +
  "[{ endpoint: 'stripe', intervalMs: 900000 }] }).";

/** `reconcile`: explains why reconciliation runs in the app, and how; exits with 2. */
export const reconcileCommand: CliCommand = {
  name: 'reconcile',
  summary: 'explains how to reconcile from the app (it cannot run from here)',
  maxPositionals: 0,
  options: {},
  help: `Usage: ${CLI_NAME} reconcile

Reconciliation asks each provider about payments the app still believes unfinished and stores
an event for every final state it never heard of, so the same handlers apply it once.
${WHY.replace('reconcile runs', 'It runs')}

Example (in the app):
  @Cron('*/15 * * * *')
  reconcile() {
    return this.reconciliation.reconcile({ endpoint: 'stripe', olderThanMs: 15 * 60_000 });
  }`,
  async run() {
    throw new CliUsageError(WHY, this.name);
  },
};
