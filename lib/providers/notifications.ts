import { NormalizedNotification } from './webhook-provider.interface';

/** The notifications of one delivery as a list, whether the provider batches or not. */
export function notificationsOf(
  normalized: NormalizedNotification | readonly NormalizedNotification[],
): readonly NormalizedNotification[] {
  return Array.isArray(normalized) ? normalized : [normalized as NormalizedNotification];
}
