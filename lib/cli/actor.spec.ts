import { userInfo } from 'node:os';
import { ACTOR_OPTIONS, cliActor } from './actor';
import { parseCommand } from './arguments';
import { CliUsageError } from './cli-errors';

function actor(args: string[], env: Record<string, string> = {}): string {
  return cliActor('pause', parseCommand('pause', args, ACTOR_OPTIONS, 0), env);
}

describe('cliActor', () => {
  it('takes --actor, then WEBHOOKS_ACTOR, then the OS user at cli', () => {
    expect(actor(['--actor', ' alice '], { WEBHOOKS_ACTOR: 'bot' })).toBe('alice');
    expect(actor([], { WEBHOOKS_ACTOR: 'bot' })).toBe('bot');
    expect(actor([], { WEBHOOKS_ACTOR: '' })).toBe(`${userInfo().username}@cli`);
    expect(actor([])).toBe(`${userInfo().username}@cli`);
  });

  it('refuses an empty name or one longer than the history keeps', () => {
    expect(() => actor(['--actor', ' '])).toThrow(CliUsageError);
    expect(() => actor([], { WEBHOOKS_ACTOR: 'x'.repeat(129) })).toThrow(
      /\$WEBHOOKS_ACTOR must be a name of 1 to 128 characters/,
    );
  });
});
