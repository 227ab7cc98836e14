export const HANDLER_CUT_OFF =
  'This handler held its batch longer than dispatch.batch.handlerBoundMs and was cut off from ' +
  'its transaction: its writes were rolled back and it runs again in a transaction of its own.';

export const HANDLER_LEFT_TRANSACTION_ABORTED = (error: string) =>
  `The handler returned after one of its statements failed (${error}), which left its ` +
  'transaction aborted; catch such failures inside ctx.manager.transaction() so they roll back ' +
  'on their own.';
