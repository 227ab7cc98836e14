import { WebhookConfigurationError } from '../core/webhook-errors';
import type { WebhookEndpoint } from '../providers/webhook-provider.interface';
import { SNAPSHOT_ENDPOINT_UNUSABLE } from './options.messages';

/**
 * The endpoints whose copies of one event are one event, each with the name of the snapshot
 * endpoint of its pair (`snapshotEndpoint`): the endpoint that names one, and the one it names.
 * Every endpoint not in it stores each delivery under its own event id only.
 * @throws WebhookConfigurationError naming the fix when a `snapshotEndpoint` cannot be paired.
 */
export function snapshotPairsOf(
  endpoints: ReadonlyMap<string, WebhookEndpoint>,
): ReadonlyMap<string, string> {
  const pairs = new Map<string, string>();
  for (const endpoint of endpoints.values()) {
    const named = endpoint.snapshotEndpoint;
    if (named === undefined) {
      continue;
    }
    const unusable = (why: string) =>
      new WebhookConfigurationError(SNAPSHOT_ENDPOINT_UNUSABLE(endpoint.name, named, why));
    const snapshot = endpoints.get(named);
    if (endpoint.provider.kind !== 'stripe') {
      throw unusable(
        `"${endpoint.name}" is a ${endpoint.provider.kind} endpoint, not a Stripe one`,
      );
    }
    if (named === endpoint.name) {
      throw unusable('it names the endpoint itself');
    }
    if (snapshot === undefined) {
      throw unusable(`no endpoint is named so (endpoints: ${[...endpoints.keys()].join(', ')})`);
    }
    if (snapshot.provider.kind !== 'stripe') {
      throw unusable(`"${named}" is a ${snapshot.provider.kind} endpoint, not a Stripe one`);
    }
    if (snapshot.snapshotEndpoint !== undefined) {
      throw unusable(`"${named}" is itself paired with "${snapshot.snapshotEndpoint}"`);
    }
    pairs.set(endpoint.name, named);
    pairs.set(named, named);
  }
  return pairs;
}
