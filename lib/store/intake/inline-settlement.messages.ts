/** A handler still running when the bound of its delivery's transaction passed. */
export const INLINE_CUT_OFF = (boundMs: number): string =>
  `The handler was still running ${boundMs} ms after the delivery's transaction began (dispatch.inline.boundMs): ` +
  'its writes were rolled back, and it runs again in the background once this run has returned';

/** A handler not started because the bound of its delivery's transaction had passed. */
export const INLINE_BOUND_PASSED = (boundMs: number): string =>
  `${boundMs} ms had passed since the delivery's transaction began (dispatch.inline.boundMs): ` +
  'the handler runs in the background';
