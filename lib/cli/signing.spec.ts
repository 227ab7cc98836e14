import { PROVIDER_DESCRIPTORS } from '../providers/descriptors';
import { runCli } from './cli';
import { CliIo } from './cli-io';

async function run(args: readonly string[]) {
  let stdout = '';
  let stderr = '';
  const io: CliIo = {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
    env: {},
    readStdin: async () => '',
    now: () => new Date(),
  };
  const code = await runCli(args, io);
  return { code, stdout, stderr };
}

const KINDS = PROVIDER_DESCRIPTORS.map((descriptor) => descriptor.kind);

describe('sign and send list the providers of the descriptors', () => {
  it('names every descriptor kind, in order, when --provider is missing or unknown', async () => {
    for (const args of [['sign'], ['send', 'http://127.0.0.1:1/', '--provider', 'acme']]) {
      const { code, stderr } = await run(args);
      expect(code).toBe(2);
      expect(stderr).toContain(`one of ${KINDS.join(', ')} `);
    }
  });

  it('describes exactly the descriptor kinds in the help', async () => {
    const { code, stdout } = await run(['sign', '--help']);
    expect(code).toBe(0);
    const listed = [...stdout.matchAll(/^ {2}(\S+) — /gm)].map((match) => match[1]);
    expect(listed).toEqual(KINDS);
  });
});
