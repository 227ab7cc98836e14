import { WebhookConfigurationError } from '../core/webhook-errors';
import { loadPromClient } from './prom-client.loader';

function missing(message: string): Error {
  return Object.assign(new Error(message), { code: 'MODULE_NOT_FOUND' });
}

describe('loadPromClient', () => {
  it('loads the installed prom-client', () => {
    expect(typeof loadPromClient().Counter).toBe('function');
  });

  it('names the install command when prom-client is missing', () => {
    const load = () => {
      throw missing("Cannot find module 'prom-client'\nRequire stack:\n- /app/dist/index.js");
    };
    expect(() => loadPromClient(load)).toThrow(WebhookConfigurationError);
    expect(() => loadPromClient(load)).toThrow(/npm i prom-client/);
  });

  it('does not hide a broken prom-client install behind that message', () => {
    const load = () => {
      throw missing(
        "Cannot find module 'tdigest'\nRequire stack:\n- /app/node_modules/prom-client/lib/summary.js",
      );
    };
    expect(() => loadPromClient(load)).toThrow(/tdigest/);
  });
});
