import { WebhookConfigurationError } from '../core/webhook-errors';
import { loadBullMq } from './bullmq.loader';

function missing(message: string): Error {
  return Object.assign(new Error(message), { code: 'MODULE_NOT_FOUND' });
}

describe('loadBullMq', () => {
  it('loads the installed bullmq', () => {
    expect(typeof loadBullMq().Queue).toBe('function');
  });

  it('names the install command when bullmq is missing', () => {
    const load = () => {
      throw missing("Cannot find module 'bullmq'\nRequire stack:\n- /app/dist/bullmq/index.js");
    };
    expect(() => loadBullMq(load)).toThrow(WebhookConfigurationError);
    expect(() => loadBullMq(load)).toThrow(/npm i bullmq/);
  });

  it('does not hide a module missing inside bullmq behind that message', () => {
    const load = () => {
      throw missing(
        "Cannot find module 'msgpackr'\nRequire stack:\n- /app/node_modules/bullmq/dist/cjs/index.js",
      );
    };
    expect(() => loadBullMq(load)).toThrow(/msgpackr/);
  });
});
