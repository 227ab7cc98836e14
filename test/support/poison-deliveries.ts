// The poison property suite's values now live with the provider kits.
export type { ExpectedEvent, PoisonValues } from '../providers/provider-kit';
