import { SigningInput } from '../provider-descriptor.interface';
import { oneOf, SigningInputError } from '../signing-input';

/** One NotificationRequestItem as the file holds it; the signer reads its fields. */
function notificationItem<T extends object>(entry: unknown): T {
  const item =
    entry !== null && typeof entry === 'object' && 'NotificationRequestItem' in entry
      ? (entry as { NotificationRequestItem: unknown }).NotificationRequestItem
      : entry;
  if (item === null || typeof item !== 'object' || Array.isArray(item)) {
    throw new SigningInputError(
      '--provider adyen takes a notification request, a list of NotificationRequestItem or one item in --file',
    );
  }
  return item as T;
}

/** The items and `live` flag of a notification request, a list of items, or one item. */
export function adyenSigningInput<T extends object>(
  input: SigningInput,
): {
  items: T[];
  live?: 'true' | 'false';
} {
  const json = input.json as { notificationItems?: unknown; live?: unknown } | unknown[];
  if (Array.isArray(json)) {
    return { items: json.map((entry) => notificationItem<T>(entry)) };
  }
  if (json !== null && typeof json === 'object' && Array.isArray(json.notificationItems)) {
    const live = json.live === undefined ? undefined : String(json.live);
    return {
      items: json.notificationItems.map((entry) => notificationItem<T>(entry)),
      live: oneOf('live (in --file)', live, ['true', 'false'] as const),
    };
  }
  return { items: [notificationItem<T>(json)] };
}
