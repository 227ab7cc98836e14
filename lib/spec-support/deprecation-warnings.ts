/**
 * Catches the process's warnings for a spec file (jest gives each file its own module registry,
 * so "once per process" starts afresh there) and reads back the deprecation warnings of a code.
 * @returns `warned(code)`: the messages emitted with that code, each checked to be a
 * `DeprecationWarning`.
 */
export function catchDeprecationWarnings(): (code: string) => string[] {
  const warnings = jest.spyOn(process, 'emitWarning').mockImplementation(() => undefined);
  return (code) =>
    warnings.mock.calls
      .filter(([, options]) => typeof options === 'object' && options?.code === code)
      .map(([message, options]) => {
        expect(options).toMatchObject({ type: 'DeprecationWarning' });
        return String(message);
      });
}
