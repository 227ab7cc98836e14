export { InboxWriter } from './inbox-writer.interface';
export { InboxWorker } from './inbox-worker.interface';
export { InboxQueries } from './inbox-queries.interface';
